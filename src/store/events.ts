// A realm's Keycloak events, as its admin API lists them (GET /admin/realms/{realm}/events and
// /admin-events), and where they are kept: like the request journal, the last EVENTS_CAPACITY of each kind,
// in this process's ring or in a shared store's list every replica appends to. An event holds ids, names and
// the request's address, never a secret, token, code or password.
import { Ring } from './ring.js';

/** How many events of each kind a realm keeps (the last 10,000 user events, the last 10,000 admin events). */
export const EVENTS_CAPACITY = 10_000;

/** A user event, as Keycloak's EventRepresentation has it. */
export interface UserEvent {
  id: string;
  /** Epoch milliseconds, by the realm's clock. */
  time: number;
  /** Keycloak's event type (`LOGIN`, `CODE_TO_TOKEN_ERROR`, …). */
  type: string;
  realmId: string;
  clientId?: string;
  /** The user's Keycloak id. */
  userId?: string;
  sessionId?: string;
  ipAddress?: string;
  /** Keycloak's error string (`invalid_user_credentials`, …) of an `_ERROR` event. */
  error?: string;
  details?: Record<string, string>;
}

/** An admin event, as Keycloak's AdminEventRepresentation has it. */
export interface AdminEvent {
  id: string;
  time: number;
  realmId: string;
  /** Who made the change: the realm, client and user of the admin's token, and the request's address. */
  authDetails: { realmId: string; clientId: string; userId: string; ipAddress: string };
  operationType: string;
  resourceType: string;
  resourcePath: string;
  /** The request's JSON body, with adminEventsDetailsEnabled. */
  representation?: string;
}

/** Where a realm's events of one kind are kept. */
export interface EventLog<T> {
  /** Appends an event; never fails the request it records (a shared store that is away drops it). */
  add(event: T): void;
  /** Every event held, newest first. */
  newestFirst(): T[] | Promise<T[]>;
  /** Drops every event. */
  clear(): unknown;
}

/** A realm's two event logs. */
export interface RealmEvents {
  user: EventLog<UserEvent>;
  admin: EventLog<AdminEvent>;
}

/** Events in this process: a ring of the last EVENTS_CAPACITY. */
class MemoryEventLog<T> implements EventLog<T> {
  readonly #ring = new Ring<T>(EVENTS_CAPACITY);
  add(event: T): void {
    this.#ring.add(event);
  }
  newestFirst(): T[] {
    return [...this.#ring.newestFirst()];
  }
  clear(): void {
    this.#ring.clear();
  }
}

export function memoryEvents(): RealmEvents {
  return { user: new MemoryEventLog(), admin: new MemoryEventLog() };
}

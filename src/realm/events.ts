// Keycloak's events of a realm: which are saved, as Keycloak's event store decides it from the realm's
// eventsEnabled, enabledEventTypes, adminEventsEnabled and adminEventsDetailsEnabled, and saving one, stamped
// by the realm's clock and id source. What each endpoint records is its own (http/events.ts, admin/events.ts).
import { realmIdOf } from '../fixtures/keycloak/schema.js';
import type { AdminEvent, UserEvent } from '../store/events.js';
import type { RealmContext } from './context.js';

/** Keycloak 26's event types, each with its `_ERROR` type, that it saves when no enabledEventTypes are set. */
const SAVED_BY_DEFAULT = `LOGIN REGISTER LOGOUT CODE_TO_TOKEN CLIENT_LOGIN FEDERATED_IDENTITY_LINK
  REMOVE_FEDERATED_IDENTITY UPDATE_EMAIL UPDATE_PROFILE UPDATE_PASSWORD UPDATE_TOTP VERIFY_EMAIL VERIFY_PROFILE
  REMOVE_TOTP GRANT_CONSENT UPDATE_CONSENT REVOKE_GRANT SEND_VERIFY_EMAIL SEND_RESET_PASSWORD
  SEND_IDENTITY_PROVIDER_LINK RESET_PASSWORD RESTART_AUTHENTICATION IDENTITY_PROVIDER_LINK_ACCOUNT
  IDENTITY_PROVIDER_FIRST_LOGIN IDENTITY_PROVIDER_POST_LOGIN IMPERSONATE CUSTOM_REQUIRED_ACTION EXECUTE_ACTIONS
  EXECUTE_ACTION_TOKEN CLIENT_REGISTER CLIENT_UPDATE CLIENT_DELETE CLIENT_INITIATED_ACCOUNT_LINKING
  TOKEN_EXCHANGE OAUTH2_DEVICE_AUTH OAUTH2_DEVICE_VERIFY_USER_CODE OAUTH2_DEVICE_CODE_TO_TOKEN
  AUTHREQID_TO_TOKEN DELETE_ACCOUNT UPDATE_CREDENTIAL REMOVE_CREDENTIAL OAUTH2_EXTENSION_GRANT
  FEDERATED_IDENTITY_OVERRIDE_LINK INVITE_ORG`;
/** The ones it does not save then. */
const NOT_SAVED_BY_DEFAULT = `REFRESH_TOKEN VALIDATE_ACCESS_TOKEN INTROSPECT_TOKEN INVALID_SIGNATURE
  REGISTER_NODE UNREGISTER_NODE USER_INFO_REQUEST IDENTITY_PROVIDER_LOGIN IDENTITY_PROVIDER_RESPONSE
  IDENTITY_PROVIDER_RETRIEVE_TOKEN CLIENT_INFO PUSHED_AUTHORIZATION_REQUEST`;

const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '');

/** Every event type Keycloak 26 has, and whether it is saved by default. */
export const EVENT_TYPES: ReadonlyMap<string, boolean> = new Map([
  ...words(SAVED_BY_DEFAULT).flatMap((t) => [[t, true] as const, [`${t}_ERROR`, true] as const]),
  ...words(NOT_SAVED_BY_DEFAULT).flatMap((t) => [[t, false] as const, [`${t}_ERROR`, false] as const]),
  ['PERMISSION_TOKEN', true],
  ['PERMISSION_TOKEN_ERROR', false],
  ['USER_DISABLED_BY_PERMANENT_LOCKOUT', true],
  ['USER_DISABLED_BY_TEMPORARY_LOCKOUT', true],
]);

/** The types saved when the realm names none: Keycloak's saved-by-default ones. */
export const DEFAULT_EVENT_TYPES: readonly string[] = [...EVENT_TYPES].filter(([, d]) => d).map(([t]) => t);

/** Whether the realm saves events of `type` now (a realm read from mock-idp's own fixtures saves none). */
function savesEvent(p: RealmContext, type: string): boolean {
  const rep = p.realm.keycloak?.representation;
  if (rep?.eventsEnabled !== true) return false;
  const enabled = rep.enabledEventTypes ?? [];
  return enabled.length === 0 ? EVENT_TYPES.get(type) === true : enabled.includes(type);
}

/** Whether the realm saves admin events now. */
export function savesAdminEvents(p: RealmContext): boolean {
  return p.realm.keycloak?.representation.adminEventsEnabled === true;
}

/** The request's address as Keycloak shows it: an IPv4 client's without the IPv6 mapping (`::ffff:`). */
export function addressOf(ip: string | undefined): string {
  return (ip ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

/** A user event without what saving it stamps. */
type NewUserEvent = Omit<UserEvent, 'id' | 'time' | 'realmId'>;

/** Saves a user event when the realm saves its type. */
export function saveUserEvent(p: RealmContext, event: NewUserEvent): void {
  if (!savesEvent(p, event.type)) return;
  p.store.events.user.add({ ...stamp(p), ...event });
}

/** Saves an admin event when the realm saves admin events (its representation only with details enabled). */
export function saveAdminEvent(p: RealmContext, event: Omit<AdminEvent, 'id' | 'time' | 'realmId'>): void {
  if (!savesAdminEvents(p)) return;
  const details = p.realm.keycloak?.representation.adminEventsDetailsEnabled === true;
  const { representation, ...rest } = event;
  p.store.events.admin.add({
    ...stamp(p),
    ...rest,
    ...(details && representation !== undefined ? { representation } : {}),
  });
}

function stamp(p: RealmContext): { id: string; time: number; realmId: string } {
  const rep = p.realm.keycloak?.representation;
  return {
    id: p.ids.uuid('event'),
    time: p.clock.nowMs(),
    realmId: rep !== undefined ? realmIdOf(rep) : p.realm.name,
  };
}

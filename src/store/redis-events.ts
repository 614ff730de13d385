// A realm's Keycloak events in Redis: one list per kind that every replica appends to, so the admin API at
// any replica lists the events recorded at all of them.
import { z } from 'zod';
import { EVENTS_CAPACITY, type EventLog, type RealmEvents } from './events.js';
import { RedisList } from './redis-list.js';
import type { Present } from './record-store.js';
import type { RedisRealm } from './redis-records.js';

const text = z.string().optional();

const userEventSchema = z.object({
  id: z.string(),
  time: z.number(),
  type: z.string(),
  realmId: z.string(),
  clientId: text,
  userId: text,
  sessionId: text,
  ipAddress: text,
  error: text,
  details: z.record(z.string(), z.string()).optional(),
});

const adminEventSchema = z.object({
  id: z.string(),
  time: z.number(),
  realmId: z.string(),
  authDetails: z.object({
    realmId: z.string(),
    clientId: z.string(),
    userId: z.string(),
    ipAddress: z.string(),
  }),
  operationType: z.string(),
  resourceType: z.string(),
  resourcePath: z.string(),
  representation: text,
});

class RedisEventLog<T extends object> implements EventLog<Present<T>> {
  readonly #list: RedisList<T>;
  constructor(list: RedisList<T>) {
    this.#list = list;
  }
  add(event: Present<T>): void {
    this.#list.add(event);
  }
  async newestFirst(): Promise<Present<T>[]> {
    return (await this.#list.range()).reverse();
  }
  clear(): Promise<number> {
    return this.#list.clear();
  }
}

export function redisEvents(realm: RedisRealm): RealmEvents {
  return {
    user: new RedisEventLog(new RedisList(realm, 'events', userEventSchema, 'event', EVENTS_CAPACITY)),
    admin: new RedisEventLog(
      new RedisList(realm, 'admin-events', adminEventSchema, 'admin event', EVENTS_CAPACITY),
    ),
  };
}

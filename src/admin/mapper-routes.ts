// /admin/realms/{realm}/clients/{id}/protocol-mappers: a client's protocol mappers, as Keycloak's
// ProtocolMappersResource lists, adds, reads, changes and removes them. A change takes effect for the next
// token; a mapper type tokens do not honour here is kept, and named on stderr as at import.
import type { Request, Router } from 'express';
import { mapperIdOf } from '../fixtures/keycloak/ids.js';
import {
  mapperSchema,
  type ClientRepresentation,
  type KeycloakRealmRepresentation,
  type MapperRepresentation,
} from '../fixtures/keycloak/schema.js';
import type { Provider } from '../realm/provider.js';
import { z } from 'zod';
import { changeRealm } from './edit.js';
import { badRequest, conflict, notFound } from './errors.js';
import { parseBody } from './input.js';
import { findClient } from './resources.js';
import { created, editing, handle, keycloakOf, type AdminContext } from './http.js';

const M = '/:realm/clients/:id/protocol-mappers';
const OIDC = 'openid-connect';

/** A mapper as Keycloak's ProtocolMapperRepresentation shows it: config values as text. */
function mapperOut(realm: string, owner: string, m: MapperRepresentation): Record<string, unknown> {
  const config = Object.fromEntries(
    Object.entries(m.config ?? {}).flatMap(([k, v]) => (v === null ? [] : [[k, String(v)]])),
  );
  return {
    id: mapperIdOf(realm, owner, m),
    name: m.name,
    protocol: m.protocol ?? OIDC,
    protocolMapper: m.protocolMapper,
    consentRequired: false,
    config,
  };
}

/** The body's mapper, checked; with an id (its own, else `id`). A mapper needs a name and a type. */
function mapperIn(body: unknown, id: string): MapperRepresentation {
  const m = parseBody(mapperSchema, body, 'protocol mapper representation');
  if (m.name === undefined || m.name === '') throw badRequest('Protocol mapper name is missing');
  return { ...m, id: m.id ?? id, protocol: m.protocol ?? OIDC };
}

/** Adds `mappers` to `client`: 409 when a name is taken (by the client's own or another of the list). */
function addMappers(
  rep: KeycloakRealmRepresentation,
  client: ClientRepresentation,
  mappers: MapperRepresentation[],
): void {
  const list = (client.protocolMappers ??= []);
  for (const m of mappers) {
    if (list.some((x) => x.name === m.name && (x.protocol ?? OIDC) === m.protocol))
      throw conflict('Protocol mapper exists with same name');
    if (list.some((x) => mapperIdOf(rep.realm, client.clientId, x) === m.id))
      throw conflict(`Protocol mapper ${String(m.id)} already exists`);
    list.push(m);
  }
}

/** The client of the path and its mapper `mapperId`; 404 "Model not found" for an unknown mapper. */
function findMapper(
  rep: KeycloakRealmRepresentation,
  req: Request,
): { client: ClientRepresentation; index: number } {
  const client = findClient(rep, String(req.params['id']));
  const id = String(req.params['mapperId']);
  const index = (client.protocolMappers ?? []).findIndex(
    (m) => mapperIdOf(rep.realm, client.clientId, m) === id,
  );
  if (index < 0) throw notFound('Model not found');
  return { client, index };
}

const newId = (p: Provider): string => p.ids.uuid('admin-mapper');

export function mapperRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    [`${M}/models`, `${M}/protocol/:protocol`],
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const client = findClient(rep, String(req.params['id']));
      const protocol = req.params['protocol'];
      res.json(
        (client.protocolMappers ?? [])
          .filter((m) => protocol === undefined || (m.protocol ?? OIDC) === protocol)
          .map((m) => mapperOut(rep.realm, client.clientId, m)),
      );
    }),
  );
  router.post(
    `${M}/models`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const mapper = mapperIn(req.body, newId(p));
      await changeRealm(p, (rep) => addMappers(rep, findClient(rep, String(req.params['id'])), [mapper]));
      created(req, res, mapper.id as string);
    }),
  );
  router.post(
    `${M}/add-models`,
    editing(ctx, (req, p) => {
      const list = parseBody(z.array(z.unknown()), req.body, 'list of protocol mapper representations');
      const mappers = list.map((m) => mapperIn(m, newId(p)));
      return (rep) => addMappers(rep, findClient(rep, String(req.params['id'])), mappers);
    }),
  );
  router.get(
    `${M}/models/:mapperId`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { client, index } = findMapper(rep, req);
      res.json(
        mapperOut(rep.realm, client.clientId, (client.protocolMappers ?? [])[index] as MapperRepresentation),
      );
    }),
  );
  router.put(
    `${M}/models/:mapperId`,
    editing(ctx, (req) => {
      const body = parseBody(mapperSchema.partial(), req.body, 'protocol mapper representation');
      return (rep) => {
        const { client, index } = findMapper(rep, req);
        const list = client.protocolMappers as MapperRepresentation[];
        const current = list[index] as MapperRepresentation;
        const id = mapperIdOf(rep.realm, client.clientId, current);
        list[index] = {
          ...current,
          ...body,
          id,
          protocolMapper: body.protocolMapper ?? current.protocolMapper,
        };
      };
    }),
  );
  router.delete(
    `${M}/models/:mapperId`,
    editing(ctx, (req) => (rep) => {
      const { client, index } = findMapper(rep, req);
      client.protocolMappers?.splice(index, 1);
    }),
  );
}

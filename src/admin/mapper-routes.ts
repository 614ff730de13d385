// The protocol mappers of a client (/clients/{id}/protocol-mappers) and of a client scope
// (/client-scopes/{id}/protocol-mappers), as Keycloak's ProtocolMappersResource lists, adds, reads, changes
// and removes them. A change takes effect for the next token; a mapper type tokens do not honour here is
// kept, and named on stderr as at import.
import type { Request, Router } from 'express';
import { z } from 'zod';
import { mapperIdOf, scopeOwner } from '../fixtures/keycloak/ids.js';
import {
  mapperSchema,
  type KeycloakRealmRepresentation,
  type MapperRepresentation,
} from '../fixtures/keycloak/schema.js';
import type { Provider } from '../realm/provider.js';
import { findClientScope, OIDC, ownClientScope } from './client-scopes.js';
import { changeRealm } from './edit.js';
import { badRequest, conflict, notFound } from './errors.js';
import { parseBody } from './input.js';
import { findClient } from './resources.js';
import { created, editing, handle, keycloakOf, type AdminContext } from './http.js';

type Rep = KeycloakRealmRepresentation;

/** Whose mappers: the name their derived ids start from, and their list (to change, the held one). */
interface Owner {
  key: string;
  mappers: MapperRepresentation[];
}

/** Each owner's path and how a request finds it (`change`: the list is about to be edited). */
const OWNERS: readonly [string, (rep: Rep, id: string, change: boolean) => Owner][] = [
  [
    '/:realm/clients/:id/protocol-mappers',
    (rep, id, change) => {
      const client = findClient(rep, id);
      return {
        key: client.clientId,
        mappers: change ? (client.protocolMappers ??= []) : (client.protocolMappers ?? []),
      };
    },
  ],
  [
    '/:realm/client-scopes/:id/protocol-mappers',
    (rep, id, change) => {
      const scope = change ? ownClientScope(rep, id) : findClientScope(rep, id);
      return {
        key: scopeOwner(scope.name),
        mappers: change ? (scope.protocolMappers ??= []) : (scope.protocolMappers ?? []),
      };
    },
  ],
];

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

/**
 * Adds `mappers` to the owner's: 409 when a name (within a protocol) or an id is taken. The names and ids held
 * are looked up in sets, so a long add-models list costs time linear in its length.
 */
function addMappers(realm: string, owner: Owner, mappers: MapperRepresentation[]): void {
  const nameOf = (m: MapperRepresentation): string => `${m.protocol ?? OIDC}\u0000${String(m.name)}`;
  const names = new Set(owner.mappers.map(nameOf));
  const ids = new Set(owner.mappers.map((x) => mapperIdOf(realm, owner.key, x)));
  for (const m of mappers) {
    if (names.has(nameOf(m))) throw conflict('Protocol mapper exists with same name');
    if (ids.has(m.id as string)) throw conflict(`Protocol mapper ${String(m.id)} already exists`);
    names.add(nameOf(m));
    ids.add(m.id as string);
    owner.mappers.push(m);
  }
}

/** The index of mapper `mapperId` in the owner's list; 404 "Model not found" for an unknown one. */
function indexOf(realm: string, owner: Owner, mapperId: string): number {
  const index = owner.mappers.findIndex((m) => mapperIdOf(realm, owner.key, m) === mapperId);
  if (index < 0) throw notFound('Model not found');
  return index;
}

const newId = (p: Provider): string => p.ids.uuid('admin-mapper');
const param = (req: Request, name: string): string => String(req.params[name]);

export function mapperRoutes(router: Router, ctx: AdminContext): void {
  for (const [M, ownerOf] of OWNERS) {
    router.get(
      [`${M}/models`, `${M}/protocol/:protocol`],
      handle(async (req, res) => {
        const rep = keycloakOf(await ctx.provider(req));
        const owner = ownerOf(rep, param(req, 'id'), false);
        const protocol = req.params['protocol'];
        res.json(
          owner.mappers
            .filter((m) => protocol === undefined || (m.protocol ?? OIDC) === protocol)
            .map((m) => mapperOut(rep.realm, owner.key, m)),
        );
      }),
    );
    router.post(
      `${M}/models`,
      handle(async (req, res) => {
        const p = await ctx.provider(req);
        const mapper = mapperIn(req.body, newId(p));
        await changeRealm(p, (rep) => addMappers(rep.realm, ownerOf(rep, param(req, 'id'), true), [mapper]));
        created(req, res, mapper.id as string);
      }),
    );
    router.post(
      `${M}/add-models`,
      editing(ctx, (req, p) => {
        const list = parseBody(z.array(z.unknown()), req.body, 'list of protocol mapper representations');
        const mappers = list.map((m) => mapperIn(m, newId(p)));
        return (rep) => addMappers(rep.realm, ownerOf(rep, param(req, 'id'), true), mappers);
      }),
    );
    router.get(
      `${M}/models/:mapperId`,
      handle(async (req, res) => {
        const rep = keycloakOf(await ctx.provider(req));
        const owner = ownerOf(rep, param(req, 'id'), false);
        const mapper = owner.mappers[
          indexOf(rep.realm, owner, param(req, 'mapperId'))
        ] as MapperRepresentation;
        res.json(mapperOut(rep.realm, owner.key, mapper));
      }),
    );
    router.put(
      `${M}/models/:mapperId`,
      editing(ctx, (req) => {
        const body = parseBody(mapperSchema.partial(), req.body, 'protocol mapper representation');
        return (rep) => {
          const owner = ownerOf(rep, param(req, 'id'), true);
          const index = indexOf(rep.realm, owner, param(req, 'mapperId'));
          const current = owner.mappers[index] as MapperRepresentation;
          const id = mapperIdOf(rep.realm, owner.key, current);
          owner.mappers[index] = {
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
        const owner = ownerOf(rep, param(req, 'id'), true);
        owner.mappers.splice(indexOf(rep.realm, owner, param(req, 'mapperId')), 1);
      }),
    );
  }
}

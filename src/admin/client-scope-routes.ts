// /admin/realms/{realm}/client-scopes (list, create, read, update, delete), the client scopes a client gets by
// default or may ask for (/clients/{id}/default-client-scopes, optional-client-scopes) and those new clients
// get (/default-default-client-scopes, /default-optional-client-scopes), as Keycloak's resources answer.
import type { Request, Router } from 'express';
import { builtInClientScopes } from '../fixtures/keycloak/builtin-scopes.js';
import { mapperIdOf, scopeOwner } from '../fixtures/keycloak/ids.js';
import { clientScopeSchema, type ClientScopeRepresentation } from '../fixtures/keycloak/schema.js';
import {
  clientScopeList,
  clientScopes,
  findClientScope,
  forgetScope,
  OIDC,
  ownClientScope,
  realmScopes,
  renameScope,
  scopeIdOf,
  scopeInUse,
  setClientScopes,
  setRealmScopes,
  type ScopeKind,
} from './client-scopes.js';
import { changeRealm } from './edit.js';
import { badRequest, conflict } from './errors.js';
import { parseBody } from './input.js';
import { present } from './representations.js';
import { findClient } from './resources.js';
import { created, editing, handle, keycloakOf, type AdminContext } from './http.js';

const S = '/:realm/client-scopes';
const BUILT_IN = new Set(builtInClientScopes().map((s) => s.name));
/** Keycloak's rule for a client scope's name: no spaces, nothing a scope parameter could not carry. */
const NAME = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

type Rep = Parameters<typeof clientScopeList>[0];

/** A client scope as Keycloak's ClientScopeRepresentation shows it, its mappers with their ids. */
function scopeOut(rep: Rep, s: ClientScopeRepresentation): Record<string, unknown> {
  const mappers = (s.protocolMappers ?? []).map((m) => ({
    ...m,
    id: mapperIdOf(rep.realm, scopeOwner(s.name), m),
    protocol: m.protocol ?? OIDC,
  }));
  return present({
    ...s,
    id: scopeIdOf(rep, s),
    protocol: s.protocol ?? OIDC,
    attributes: s.attributes ?? {},
    protocolMappers: mappers.length > 0 ? mappers : undefined,
  });
}

function checkName(name: string | undefined): string {
  if (name === undefined || name === '' || !NAME.test(name))
    throw badRequest(`Unexpected name "${name ?? ''}" for ClientScope`);
  return name;
}

const KINDS: readonly ScopeKind[] = ['default', 'optional'];
const param = (req: Request, name: string): string => String(req.params[name]);

export function clientScopeRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    S,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json(clientScopeList(rep).map((s) => scopeOut(rep, s)));
    }),
  );
  router.post(
    S,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(clientScopeSchema.partial(), req.body, 'client scope representation');
      const name = checkName(body.name);
      const id = body.id ?? p.ids.uuid('admin-client-scope');
      await changeRealm(p, (rep) => {
        if (clientScopeList(rep).some((s) => s.name === name))
          throw conflict(`Client Scope ${name} already exists`);
        (rep.clientScopes ??= []).push({ ...body, id, name, protocol: body.protocol ?? OIDC });
      });
      created(req, res, id);
    }),
  );
  router.get(
    `${S}/:id`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json(scopeOut(rep, findClientScope(rep, param(req, 'id'))));
    }),
  );
  router.put(
    `${S}/:id`,
    editing(ctx, (req) => {
      const body = parseBody(clientScopeSchema.partial(), req.body, 'client scope representation');
      return (rep) => {
        const scope = ownClientScope(rep, param(req, 'id'));
        const { id: _id, protocolMappers: _m, ...fields } = body;
        if (fields.name !== undefined && fields.name !== scope.name) {
          const name = checkName(fields.name);
          if (clientScopeList(rep).some((s) => s.name === name))
            throw conflict(`Client Scope ${name} already exists`);
          if (BUILT_IN.has(scope.name))
            throw badRequest(`The built-in client scope "${scope.name}" keeps its name here`);
          renameScope(rep, scope.name, name);
        }
        Object.assign(scope, fields);
      };
    }),
  );
  router.delete(
    `${S}/:id`,
    editing(ctx, (req) => (rep) => {
      const scope = findClientScope(rep, param(req, 'id'));
      if (scopeInUse(rep, scope.name)) throw badRequest('Cannot remove client scope, it is currently in use');
      if (BUILT_IN.has(scope.name))
        throw badRequest(`The built-in client scope "${scope.name}" cannot be removed here`);
      rep.clientScopes = (rep.clientScopes ?? []).filter((s) => s !== scope);
      forgetScope(rep, scope.name);
    }),
  );

  for (const kind of KINDS) {
    const other: ScopeKind = kind === 'default' ? 'optional' : 'default';
    const linkOut = (rep: Rep, names: readonly string[]) =>
      clientScopeList(rep)
        .filter((s) => names.includes(s.name))
        .map((s) => ({ id: scopeIdOf(rep, s), name: s.name }));
    const scopeNamed = (rep: Rep, id: string): string =>
      findClientScope(rep, id, 'Client scope not found').name;

    // A client's: added to this list (moved from the other), or removed.
    const C = `/:realm/clients/:id/${kind}-client-scopes`;
    router.get(
      C,
      handle(async (req, res) => {
        const rep = keycloakOf(await ctx.provider(req));
        res.json(linkOut(rep, clientScopes(rep, findClient(rep, param(req, 'id')), kind)));
      }),
    );
    router.put(
      `${C}/:scopeId`,
      editing(ctx, (req) => (rep) => {
        const client = findClient(rep, param(req, 'id'));
        const name = scopeNamed(rep, param(req, 'scopeId'));
        const names = clientScopes(rep, client, kind);
        setClientScopes(
          client,
          other,
          clientScopes(rep, client, other).filter((n) => n !== name),
        );
        setClientScopes(client, kind, names.includes(name) ? [...names] : [...names, name]);
      }),
    );
    router.delete(
      `${C}/:scopeId`,
      editing(ctx, (req) => (rep) => {
        const client = findClient(rep, param(req, 'id'));
        const name = scopeNamed(rep, param(req, 'scopeId'));
        setClientScopes(
          client,
          kind,
          clientScopes(rep, client, kind).filter((n) => n !== name),
        );
      }),
    );

    // The realm's, for clients made from now on.
    const R = `/:realm/default-${kind}-client-scopes`;
    router.get(
      R,
      handle(async (req, res) => {
        const rep = keycloakOf(await ctx.provider(req));
        res.json(linkOut(rep, realmScopes(rep, kind)));
      }),
    );
    router.put(
      `${R}/:scopeId`,
      editing(ctx, (req) => (rep) => {
        const name = scopeNamed(rep, param(req, 'scopeId'));
        const names = realmScopes(rep, kind);
        setRealmScopes(
          rep,
          other,
          realmScopes(rep, other).filter((n) => n !== name),
        );
        setRealmScopes(rep, kind, names.includes(name) ? [...names] : [...names, name]);
      }),
    );
    router.delete(
      `${R}/:scopeId`,
      editing(ctx, (req) => (rep) => {
        const name = scopeNamed(rep, param(req, 'scopeId'));
        setRealmScopes(
          rep,
          kind,
          realmScopes(rep, kind).filter((n) => n !== name),
        );
      }),
    );
  }
}

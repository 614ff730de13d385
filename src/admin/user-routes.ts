// /admin/realms/{realm}/users: search, count, create, read, update, delete, reset-password, role mappings,
// groups (sessions and logout: session-routes.ts).
import type { Request, Router } from 'express';
import { groupPath, settleRequiredActions } from '../fixtures/keycloak/convert.js';
import type { UserRepresentation } from '../fixtures/keycloak/schema.js';
import { changeRealm, newCredential, setPassword } from './edit.js';
import { badRequest, conflict, notFound } from './errors.js';
import { credentialInput, parseBody, userInput } from './input.js';
import { allGroups, findGroup, findUser, usersOf } from './resources.js';
import { credentialIdOf, credentialOut, groupOut, userOut } from './representations.js';
import { created, editing, handle, keycloakOf, page, queryParam, type AdminContext } from './http.js';

const U = '/:realm/users';

/** A field filter's match (`username=`, `email=`, …): equal (exact) or containing it, in any case. */
function matches(value: string | undefined, wanted: string, exact: boolean): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  const w = wanted.toLowerCase();
  return exact ? v === w : v.includes(w);
}

/** Whether `value` matches `pattern`, whose `*` stands for anything (greedy, linear in the two lengths). */
function globMatches(value: string, pattern: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts.length > 1 ? (parts[parts.length - 1] ?? '') : undefined;
  if (last === undefined) return value === first;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last))
    return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

const SEARCH_FIELDS = ['username', 'email', 'firstName', 'lastName'] as const;

/**
 * Whether a user matches Keycloak's `search` (JpaUserProvider): every whitespace-separated term matches the
 * username, email, first or last name, in any case: a "quoted" term the whole value, any other the start of
 * it, `*` standing for anything (`*son` ends in it, `*an*` holds it).
 */
function matchesSearch(u: UserRepresentation, search: string): boolean {
  return search
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')
    .every((term) => {
      const t = term.toLowerCase();
      const quoted = t.length >= 2 && t.startsWith('"') && t.endsWith('"');
      const pattern = quoted ? t.slice(1, -1) : t.endsWith('*') ? t : `${t}*`;
      return SEARCH_FIELDS.some((f) => {
        const v = u[f]?.toLowerCase();
        return v !== undefined && (quoted ? v === pattern : globMatches(v, pattern));
      });
    });
}

/**
 * The `key:value` pairs of Keycloak's `q` (SearchQueryUtils.getFields): separated by spaces, a key or a value
 * may be double-quoted to hold spaces (a backslash escapes a quote in it); a term without a colon is ignored.
 */
function searchQueryFields(q: string): [string, string][] {
  const quoted = '"((?:[^"\\\\]|\\\\.)*)"';
  const term = new RegExp(`(?:${quoted}|([^\\s:"][^\\s:]*))(?::(?:${quoted}|(\\S*)))?`, 'g');
  const unescape = (v: string): string => v.replace(/\\(.)/g, '$1');
  const fields: [string, string][] = [];
  for (const m of q.matchAll(term)) {
    const [, quotedKey, key, quotedValue, value] = m;
    if (quotedValue === undefined && value === undefined) continue;
    fields.push([
      quotedKey !== undefined ? unescape(quotedKey) : (key ?? ''),
      quotedValue !== undefined ? unescape(quotedValue) : (value ?? ''),
    ]);
  }
  return fields;
}

/** The filters of Keycloak's user search other than `search`; any of them lets service accounts in. */
const FILTERS = [
  'lastName',
  'firstName',
  'email',
  'username',
  'emailVerified',
  'idpAlias',
  'idpUserId',
  'enabled',
  'exact',
];

/**
 * The users a search query picks, in username order. As Keycloak's UsersResource: `search` (`id:` followed by
 * ids, or terms: {@link matchesSearch}) takes only `enabled` and `emailVerified` beside it and leaves service
 * accounts out, as no query does; the field filters and `q` (custom attributes, matched whole and in any
 * case unless `exact=false`, which matches a part) take them in.
 */
function searchUsers(req: Request, users: readonly UserRepresentation[]): UserRepresentation[] {
  const exact = queryParam(req, 'exact') === 'true';
  const search = queryParam(req, 'search');
  const ids = search?.startsWith('id:') ? search.slice(3).trim().split(/\s+/) : undefined;
  const attributes = search === undefined ? searchQueryFields(queryParam(req, 'q') ?? '') : [];
  const attributeExact = queryParam(req, 'exact') !== 'false';
  const filtered =
    search === undefined && (attributes.length > 0 || FILTERS.some((f) => queryParam(req, f) !== undefined));
  const idp = queryParam(req, 'idpAlias');
  return users
    .filter((u) => {
      if (ids !== undefined) return ids.includes(u.id ?? '');
      if (u.serviceAccountClientId !== undefined && !filtered) return false;
      if (idp !== undefined && search === undefined) return false;
      if (search !== undefined && !matchesSearch(u, search)) return false;
      if (search === undefined)
        for (const f of SEARCH_FIELDS) {
          const wanted = queryParam(req, f);
          if (wanted !== undefined && !matches(u[f], wanted, exact)) return false;
        }
      const enabled = queryParam(req, 'enabled');
      if (enabled !== undefined && String(u.enabled ?? true) !== enabled) return false;
      const verified = queryParam(req, 'emailVerified');
      if (verified !== undefined && String(u.emailVerified ?? false) !== verified) return false;
      return attributes.every(([k, v]) => {
        const wanted = v.toLowerCase();
        return (u.attributes?.[k] ?? []).some((value) =>
          attributeExact ? value.toLowerCase() === wanted : value.toLowerCase().includes(wanted),
        );
      });
    })
    .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}

export function userRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    U,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const brief = queryParam(req, 'briefRepresentation') === 'true';
      res.json(page(req, searchUsers(req, rep.users ?? [])).map((u) => userOut(u, brief)));
    }),
  );
  router.get(
    `${U}/count`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json(searchUsers(req, rep.users ?? []).length);
    }),
  );
  router.post(
    U,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(userInput, req.body, 'user representation');
      const username = body.username?.trim().toLowerCase();
      if (username === undefined || username === '') throw badRequest('User name is missing');
      const id = p.ids.uuid('admin-user');
      await changeRealm(p, (rep) => {
        const users = usersOf(rep);
        if (users.some((u) => u.username === username)) throw conflict('User exists with same username');
        const email = body.email?.toLowerCase();
        if (email !== undefined && email !== '' && users.some((u) => u.email?.toLowerCase() === email))
          throw conflict('User exists with same email');
        const groups = (body.groups ?? []).map(groupPath);
        const known = new Set(allGroups(rep).map((g) => g.path));
        const missing = groups.find((g) => !known.has(g));
        if (missing !== undefined) throw badRequest(`Group ${missing} not found`);
        // Role mappings in the body are not taken, as Keycloak does not take them here (the role-mappings endpoints do).
        const { id: _ignored, realmRoles: _r, clientRoles: _c, ...fields } = body;
        users.push({
          ...fields,
          id,
          username,
          ...(email !== undefined && email !== '' ? { email } : { email: undefined }),
          enabled: body.enabled ?? false,
          emailVerified: body.emailVerified ?? false,
          createdTimestamp: p.clock.now().getTime(),
          ...(groups.length > 0 ? { groups } : {}),
        });
        const added = users[users.length - 1] as UserRepresentation;
        if (added.email === undefined) delete added.email;
        // As Keycloak: a temporary password asks for a new one at the next sign-in.
        settleRequiredActions(added);
      });
      created(req, res, id);
    }),
  );
  router.get(
    `${U}/:id`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json(userOut(findUser(rep, String(req.params['id']))));
    }),
  );
  router.put(
    `${U}/:id`,
    editing(ctx, (req, p) => {
      const body = parseBody(userInput, req.body, 'user representation');
      const made = { id: p.ids.uuid('admin-credential'), createdDate: p.clock.now().getTime() };
      return (rep) => {
        const user = findUser(rep, String(req.params['id']));
        const username = body.username?.trim().toLowerCase();
        if (username !== undefined && username !== user.username) {
          if (rep.users?.some((u) => u.username === username))
            throw conflict('User exists with same username');
          user.username = username;
        }
        const email = body.email?.toLowerCase();
        if (email !== undefined && email !== '' && rep.users?.some((u) => u !== user && u.email === email))
          throw conflict('User exists with same email');
        const {
          id: _id,
          username: _u,
          credentials,
          groups: _g,
          realmRoles: _r,
          clientRoles: _c,
          ...fields
        } = body;
        Object.assign(user, fields);
        if (email !== undefined) user.email = email;
        if (credentials !== undefined) {
          const password = credentials.find(
            (c) => (c.type ?? 'password') === 'password' && c.value !== undefined,
          );
          if (password?.value !== undefined) {
            const others = (user.credentials ?? []).filter((c) => (c.type ?? 'password') !== 'password');
            user.credentials = [...others, { ...made, ...password, type: 'password' }];
          }
        }
        // As Keycloak: a temporary password asks for a new one at the next sign-in.
        settleRequiredActions(user);
      };
    }),
  );
  router.delete(
    `${U}/:id`,
    editing(ctx, (req) => (rep) => {
      const user = findUser(rep, String(req.params['id']));
      rep.users = usersOf(rep).filter((u) => u !== user);
    }),
  );
  router.put(
    `${U}/:id/reset-password`,
    editing(ctx, (req, p) => {
      const body = parseBody(credentialInput, req.body, 'credential representation');
      if (body.value === undefined || body.value === '') throw badRequest('Missing password value');
      if ((body.type ?? 'password') !== 'password') throw badRequest('Only a password can be reset');
      const made = newCredential(p);
      const value = body.value;
      return (rep) =>
        setPassword(findUser(rep, String(req.params['id'])), made, value, body.temporary === true);
    }),
  );
  // A user's credentials as Keycloak lists them (never their secrets), and one removed.
  router.get(
    `${U}/:id/credentials`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const user = findUser(rep, String(req.params['id']));
      res.json((user.credentials ?? []).map((c, i) => credentialOut(rep.realm, user, c, i)));
    }),
  );
  router.delete(
    `${U}/:id/credentials/:credential`,
    editing(ctx, (req) => (rep) => {
      const user = findUser(rep, String(req.params['id']));
      const list = user.credentials ?? [];
      const index = list.findIndex(
        (c, i) => credentialIdOf(rep.realm, user, c, i) === req.params['credential'],
      );
      if (index < 0) throw notFound('Credential not found');
      list.splice(index, 1);
    }),
  );

  // Groups.
  router.get(
    `${U}/:id/groups`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const user = findUser(rep, String(req.params['id']));
      const mine = new Set(user.groups ?? []);
      const groups = allGroups(rep).filter((g) => mine.has(g.path));
      res.json(page(req, groups, -1).map((g) => groupOut(g.group, g.path, g.parent?.id, false)));
    }),
  );
  router.get(
    `${U}/:id/groups/count`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const user = findUser(rep, String(req.params['id']));
      res.json({ count: (user.groups ?? []).length });
    }),
  );
  for (const method of ['put', 'delete'] as const)
    router[method](
      `${U}/:id/groups/:group`,
      editing(ctx, (req) => (rep) => {
        const user = findUser(rep, String(req.params['id']));
        const { path } = findGroup(rep, String(req.params['group']));
        const groups = (user.groups ?? []).filter((g) => g !== path);
        if (method === 'put') groups.push(path);
        user.groups = groups;
      }),
    );
}

// /admin/realms/{realm}/groups: groups, their subgroups and members (their role mappings: role-mapping-routes.ts).
import type { Router } from 'express';
import type { GroupRepresentation, KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { changeRealm } from './edit.js';
import { badRequest, conflict, notFound } from './errors.js';
import { groupInput, parseBody } from './input.js';
import { allGroups, findGroup } from './resources.js';
import { groupOut, userOut } from './representations.js';
import { created, editing, handle, keycloakOf, page, queryParam, type AdminContext } from './http.js';

const G = '/:realm/groups';

/** Moves every user membership of `from` (and its subgroups) to `to`, or drops it (`to` undefined). */
function movePaths(rep: KeycloakRealmRepresentation, from: string, to: string | undefined): void {
  for (const u of rep.users ?? []) {
    if (u.groups === undefined) continue;
    u.groups = u.groups.flatMap((g) => {
      if (g !== from && !g.startsWith(`${from}/`)) return [g];
      return to === undefined ? [] : [`${to}${g.slice(from.length)}`];
    });
  }
}

export function groupRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    G,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const search = queryParam(req, 'search');
      const exact = queryParam(req, 'exact') === 'true';
      const top = rep.groups ?? [];
      const matches = (g: GroupRepresentation): boolean =>
        search !== undefined &&
        (exact ? g.name === search : g.name.toLowerCase().includes(search.toLowerCase()));
      // As Keycloak answers a search: the top-level groups on the way to a match, each with only the
      // subgroups on the way to one (a match keeps its own subgroups that match, too).
      const tree = (
        g: GroupRepresentation,
        path: string,
        parentId: string | undefined,
      ): Record<string, unknown>[] => {
        const below = (g.subGroups ?? []).flatMap((s) => tree(s, `${path}/${s.name}`, g.id));
        if (!matches(g) && below.length === 0) return [];
        return [{ ...groupOut(g, path, parentId, false), subGroups: below }];
      };
      const list =
        search === undefined || search === ''
          ? top.map((g) => groupOut(g, `/${g.name}`, undefined, false))
          : top.flatMap((g) => tree(g, `/${g.name}`, undefined));
      res.json(page(req, list, -1));
    }),
  );
  router.get(
    `${G}/count`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json({ count: (rep.groups ?? []).length });
    }),
  );
  /**
   * POST /groups and /groups/{id}/children, as Keycloak answers them: a body with the id of a group the realm
   * has moves that group here (204); else a new group (201 with its Location). Under a parent the answer
   * carries the group's representation.
   */
  const create = (parentId: string | undefined) =>
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(groupInput, req.body, 'group representation');
      const madeId = p.ids.uuid('admin-group');
      let moved = false;
      let out: Record<string, unknown> = {};
      await changeRealm(p, (rep) => {
        rep.groups ??= [];
        const parent = parentId === undefined ? undefined : findGroup(rep, parentId);
        const siblings: GroupRepresentation[] =
          parent === undefined ? rep.groups : (parent.group.subGroups ??= []);
        const existing = allGroups(rep).find((g) => g.group.id === body.id);
        const name = existing?.group.name ?? body.name;
        if (name === undefined || name.trim() === '') throw badRequest('Group name is missing');
        const path = `${parent?.path ?? ''}/${name}`;
        moved = existing !== undefined;
        if (existing !== undefined) {
          if (existing.siblings === siblings) return; // already there
          if (
            parent !== undefined &&
            (parent.path === existing.path || parent.path.startsWith(`${existing.path}/`))
          )
            throw badRequest('Cannot move group to itself or to one of its subgroups');
        }
        if (siblings.some((g) => g.name === name))
          throw conflict(
            parentId === undefined
              ? `Top level group named '${name}' already exists.`
              : `Sibling group named '${name}' already exists.`,
          );
        let group: GroupRepresentation;
        if (existing !== undefined) {
          group = existing.group;
          existing.siblings.splice(existing.siblings.indexOf(group), 1);
          movePaths(rep, existing.path, path);
        } else {
          const { id: _id, ...fields } = body;
          group = { ...fields, id: madeId, name };
        }
        siblings.push(group);
        out = groupOut(group, path, parent?.group.id, true);
      });
      if (moved) res.status(204).end();
      else created(req, res, madeId, parentId === undefined ? undefined : out);
    });
  router.post(G, create(undefined));
  router.post(`${G}/:id/children`, (req, res, next) => create(String(req.params['id']))(req, res, next));
  router.get(
    `${G}/:id/children`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { group, path } = findGroup(rep, String(req.params['id']));
      res.json(
        page(
          req,
          (group.subGroups ?? []).map((s) => groupOut(s, `${path}/${s.name}`, group.id, false)),
        ),
      );
    }),
  );
  // A group by its path (`/staff/engineering`), as Keycloak's group-by-path answers it.
  router.get(
    '/:realm/group-by-path/*path',
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const segments = req.params['path'] as unknown as string[];
      const path = `/${segments.join('/')}`;
      const found = allGroups(rep).find((g) => g.path === path);
      if (found === undefined) throw notFound(`Group path does not exist`);
      res.json(groupOut(found.group, found.path, found.parent?.id, true));
    }),
  );
  router.get(
    `${G}/:id`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { group, path, parent } = findGroup(rep, String(req.params['id']));
      res.json(groupOut(group, path, parent?.id, true));
    }),
  );
  router.put(
    `${G}/:id`,
    editing(ctx, (req) => {
      const body = parseBody(groupInput, req.body, 'group representation');
      return (rep) => {
        const { group, path, siblings } = findGroup(rep, String(req.params['id']));
        const { id: _id, name, ...fields } = body;
        Object.assign(group, fields);
        if (name !== undefined && name !== group.name) {
          if (siblings.some((g) => g.name === name))
            throw conflict(`Sibling group named '${name}' already exists.`);
          group.name = name;
          movePaths(rep, path, `${path.slice(0, path.lastIndexOf('/'))}/${name}`);
        }
      };
    }),
  );
  router.delete(
    `${G}/:id`,
    editing(ctx, (req) => (rep) => {
      const { group, path, siblings } = findGroup(rep, String(req.params['id']));
      siblings.splice(siblings.indexOf(group), 1);
      movePaths(rep, path, undefined);
    }),
  );
  router.get(
    `${G}/:id/members`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { path } = findGroup(rep, String(req.params['id']));
      const brief = queryParam(req, 'briefRepresentation') === 'true';
      const members = (rep.users ?? []).filter((u) => (u.groups ?? []).includes(path));
      res.json(page(req, members).map((u) => userOut(u, brief, false)));
    }),
  );
}

// /admin/realms/{realm}/users/profile: the realm's user profile configuration (Keycloak 24 and later), read
// and replaced as Keycloak's UserProfileResource does, and held where a realm export keeps it (the component
// of org.keycloak.userprofile.UserProfileProvider), so an imported realm's profile is the one served. Here it
// is kept and shown only: attributes are stored whatever it says (Keycloak's policy for unmanaged attributes
// is not applied).
import type { Router } from 'express';
import { z } from 'zod';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { nameUuid } from '../ids.js';
import { changeRealm } from './edit.js';
import { cannotParse } from './errors.js';
import { parseBody } from './input.js';
import { handle, keycloakOf, type AdminContext } from './http.js';

const PROVIDER = 'org.keycloak.userprofile.UserProfileProvider';
const CONFIG_KEY = 'kc.user.profile.config';
const EVERYONE = { view: ['admin', 'user'], edit: ['admin', 'user'] };
const NAME_RULES = { length: { max: 255 }, 'person-name-prohibited-characters': {} };

/** Keycloak 26's profile of a new realm. */
const DEFAULT_PROFILE = {
  attributes: [
    {
      name: 'username',
      displayName: '${username}',
      validations: {
        length: { min: 3, max: 255 },
        'username-prohibited-characters': {},
        'up-username-not-idn-homograph': {},
      },
      permissions: EVERYONE,
      multivalued: false,
    },
    {
      name: 'email',
      displayName: '${email}',
      validations: { email: {}, length: { max: 255 } },
      required: { roles: ['user'] },
      permissions: EVERYONE,
      multivalued: false,
    },
    {
      name: 'firstName',
      displayName: '${firstName}',
      validations: NAME_RULES,
      required: { roles: ['user'] },
      permissions: EVERYONE,
      multivalued: false,
    },
    {
      name: 'lastName',
      displayName: '${lastName}',
      validations: NAME_RULES,
      required: { roles: ['user'] },
      permissions: EVERYONE,
      multivalued: false,
    },
  ],
  groups: [
    {
      name: 'user-metadata',
      displayHeader: 'User metadata',
      displayDescription: 'Attributes, which refer to user metadata',
    },
  ],
};

/** Keycloak's UPConfig, as far as it is read here: attributes by name, every other field kept as sent. */
const attributeSchema = z.looseObject({
  name: z.string(),
  displayName: z.string().optional(),
  validations: z.record(z.string(), z.unknown()).optional(),
  required: z.unknown().optional(),
  multivalued: z.boolean().optional(),
  group: z.string().optional(),
});
const profileSchema = z.looseObject({ attributes: z.array(attributeSchema).optional() });
type Profile = z.output<typeof profileSchema>;

interface Component {
  id?: string;
  providerId?: string;
  subComponents?: Record<string, unknown>;
  config?: Record<string, string[]>;
}

function components(rep: KeycloakRealmRepresentation): Record<string, Component[]> | undefined {
  const c = rep['components'];
  return typeof c === 'object' && c !== null ? (c as Record<string, Component[]>) : undefined;
}

/** The realm's profile: the one its representation holds, else Keycloak's default. */
function profileOf(rep: KeycloakRealmRepresentation): Profile {
  const text = components(rep)?.[PROVIDER]?.[0]?.config?.[CONFIG_KEY]?.[0];
  if (text !== undefined) {
    try {
      const parsed = profileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // An export's profile that is not JSON: served as Keycloak's default.
    }
  }
  return DEFAULT_PROFILE;
}

export function profileRoutes(router: Router, ctx: AdminContext): void {
  const P = '/:realm/users/profile';
  router.get(
    P,
    handle(async (req, res) => {
      res.json(profileOf(keycloakOf(await ctx.provider(req))));
    }),
  );
  router.put(
    P,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const profile = parseBody(profileSchema, req.body, 'user profile configuration');
      const seen = new Set<string>();
      for (const { name } of profile.attributes ?? []) {
        if (seen.has(name)) throw cannotParse('unknown_error', `attribute "${name}" is defined twice`);
        seen.add(name);
      }
      await changeRealm(p, (rep) => {
        const all = (rep['components'] = components(rep) ?? {});
        const held = all[PROVIDER]?.[0];
        const component: Component = held ?? {
          id: nameUuid(rep.realm, 'component', PROVIDER),
          providerId: 'declarative-user-profile',
          subComponents: {},
        };
        component.config = { ...component.config, [CONFIG_KEY]: [JSON.stringify(profile)] };
        all[PROVIDER] = [component, ...(all[PROVIDER] ?? []).slice(1)];
      });
      res.json(profile);
    }),
  );
  router.get(
    `${P}/metadata`,
    handle(async (req, res) => {
      const profile = profileOf(keycloakOf(await ctx.provider(req)));
      res.json({
        attributes: (profile.attributes ?? []).map((a) => ({
          name: a.name,
          displayName: a.displayName ?? a.name,
          required: a.required !== undefined,
          readOnly: false,
          validators: a.validations ?? {},
          multivalued: a.multivalued ?? false,
          ...(a.group !== undefined ? { group: a.group } : {}),
        })),
        groups: Array.isArray(profile['groups']) ? profile['groups'] : [],
      });
    }),
  );
}

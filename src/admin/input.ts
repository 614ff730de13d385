// What the admin API takes in a body: Keycloak's representations, checked for the types mock-idp reads (a
// wrong type is a 400 that says where), every other field kept as sent.
import { z } from 'zod';
import { clientSchema, roleSchema, userSchema } from '../fixtures/keycloak/schema.js';
import { badRequest, cannotParse } from './errors.js';

const names = z.array(z.string());
const lists = z.record(z.string(), names);

export const userInput = userSchema.partial();
export const clientInput = clientSchema.partial();
export const roleInput = roleSchema.partial();
export const groupInput = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  attributes: lists.optional(),
  realmRoles: names.optional(),
  clientRoles: lists.optional(),
});
export const credentialInput = z.looseObject({
  type: z.string().optional(),
  value: z.string().optional(),
  temporary: z.boolean().optional(),
});
/** A role in a role-mapping or composites body: its id or its name. */
export const roleRefs = z.array(z.looseObject({ id: z.string().optional(), name: z.string().optional() }));

/** The body checked by `schema`, or a 400 naming the first problem. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  if (body === undefined) throw badRequest(`A ${what} is required in the body (JSON)`);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.filter((p): p is string | number => typeof p !== 'symbol') ?? [];
  const where = path.length > 0 ? `"${path.join('.')}" of the ${what}` : `the ${what}`;
  throw cannotParse('unknown_error', `${where}: ${issue?.message ?? 'not valid'}`);
}

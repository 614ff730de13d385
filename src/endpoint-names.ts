// The names of the endpoints faults target and the request journal filters by.

/** The named endpoints: faults target them, the request journal filters by them. */
export const ENDPOINT_NAMES = [
  'token',
  'introspect',
  'discovery',
  'certs',
  'userinfo',
  'auth',
  'logout',
  'revoke',
  'registration',
  'par',
  'device',
  'ciba',
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

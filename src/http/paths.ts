// URL paths under the realm base (PRODUCT.md §2).

export const PATHS = {
  discovery: '/.well-known/openid-configuration',
  token: '/protocol/openid-connect/token',
  introspect: '/protocol/openid-connect/token/introspect',
  certs: '/protocol/openid-connect/certs',
  auth: '/protocol/openid-connect/auth',
  userinfo: '/protocol/openid-connect/userinfo',
  logout: '/protocol/openid-connect/logout',
  revoke: '/protocol/openid-connect/revoke',
  checkSession: '/protocol/openid-connect/login-status-iframe.html',
  checkSessionInit: '/protocol/openid-connect/login-status-iframe.html/init',
  checkSessionStatus: '/protocol/openid-connect/login-status-iframe.html/status',
  thirdPartyCookiesStep1: '/protocol/openid-connect/3p-cookies/step1.html',
  thirdPartyCookiesStep2: '/protocol/openid-connect/3p-cookies/step2.html',
  registration: '/clients-registrations/openid-connect',
} as const;

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
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

// A realm's URL paths: its base under the server's origin, and every endpoint's path under that base.

/** Where a realm is served, under the server's origin: `/realms/{name}` (the name as the URL carries it). */
export function realmBasePath(name: string): string {
  return `/realms/${name}`;
}

export const PATHS = {
  discovery: '/.well-known/openid-configuration',
  token: '/protocol/openid-connect/token',
  introspect: '/protocol/openid-connect/token/introspect',
  certs: '/protocol/openid-connect/certs',
  auth: '/protocol/openid-connect/auth',
  userinfo: '/protocol/openid-connect/userinfo',
  logout: '/protocol/openid-connect/logout',
  revoke: '/protocol/openid-connect/revoke',
  par: '/protocol/openid-connect/ext/par/request',
  checkSession: '/protocol/openid-connect/login-status-iframe.html',
  checkSessionInit: '/protocol/openid-connect/login-status-iframe.html/init',
  checkSessionStatus: '/protocol/openid-connect/login-status-iframe.html/status',
  thirdPartyCookiesStep1: '/protocol/openid-connect/3p-cookies/step1.html',
  thirdPartyCookiesStep2: '/protocol/openid-connect/3p-cookies/step2.html',
  registration: '/clients-registrations/openid-connect',
} as const;

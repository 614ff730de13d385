// Starts axa's oauth2-mock-server on a free 127.0.0.1 port with one RSA key; prints `port N` when ready.
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(0, '127.0.0.1');
console.log(`oauth2-mock-server listening on ${server.issuer.url} port ${server.address().port}`);

const stop = () => server.stop().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

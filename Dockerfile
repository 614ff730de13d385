# mock-idp: a local mock OpenID Connect provider, as a small image for CI and docker-compose.
#
#   docker build -t mock-idp .
#   docker run --rm -p 127.0.0.1:8080:8080 mock-idp
#   docker run --rm -p 127.0.0.1:8080:8080 -v ./users.yaml:/fixtures/users.yaml mock-idp --fixtures /fixtures/users.yaml
#
# Behind a TLS-intercepting proxy, hand its CA bundle to npm as a BuildKit secret:
#   DOCKER_BUILDKIT=1 docker build --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt -t mock-idp .

# ---- build: dev dependencies, tsc, one esbuild bundle of the CLI and everything it imports (and one of the
#      fixtures worker), see scripts/bundle-cli.js
FROM node:24-bookworm-slim AS build
WORKDIR /src
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
# --ignore-scripts: nothing in the tree needs an install script to build (esbuild ships its
# binary as an optional dependency), and `prepare` would run before the sources are copied.
RUN --mount=type=secret,id=npm_ca,required=false \
    --mount=type=cache,target=/root/.npm,sharing=locked \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY src ./src
COPY fixtures ./fixtures
# The image keeps the package layout (bin/ beside dist/ and fixtures/, package.json above them: ES modules,
# the version) so the CLI finds the default fixtures. The Redis client (--store redis://...), which the bundle
# leaves out and imports when asked for, is one more bundle where import('ioredis') finds it.
RUN npm run build \
 && mkdir -p /out/bin /out/dist \
 && cp package.json /out/ \
 && cp bin/mock-idp.js /out/bin/ \
 && cp dist/cli.js dist/fixtures-worker.js /out/dist/ \
 && npx esbuild "$(node -p "require.resolve('ioredis')")" --bundle --platform=node --target=node20 --format=cjs \
      --minify-whitespace --legal-comments=none --outfile=/out/node_modules/ioredis/index.js \
 && cp -r fixtures /out/fixtures

# ---- runtime: node, the bin, the CLI bundle and the fixtures worker's bundle, the Redis client's bundle, the
#      bundled fixtures; no npm install, no npm cache
FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
# Files stay root-owned and read-only to the user that runs the server.
COPY --from=build /out/ /app/
USER node
EXPOSE 8080
# Over https (MOCK_IDP_TLS=true or MOCK_IDP_TLS_CERT) the probe asks for /health over TLS without checking the
# certificate: it only asks whether this container's own server answers.
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "const e=process.env,t=/^(1|true|on)$/i.test(e.MOCK_IDP_TLS||'')||!!e.MOCK_IDP_TLS_CERT;require(t?'node:https':'node:http').get({host:'127.0.0.1',port:e.PORT||8080,path:(e.KC_HTTP_RELATIVE_PATH||'').replace(/^\\/*/,'/').replace(/\\/+$/,'')+'/health',rejectUnauthorized:false},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/mock-idp.js"]

// Writes fixtures.schema.json from the same zod schema the validator uses (run by `npm run build`).
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { fixturesSchema } from '../dist/fixtures/schema.js';

const schema = {
  ...z.toJSONSchema(fixturesSchema, { io: 'input', unrepresentable: 'any' }),
  // Top-level `x-…` keys are the file's own (anchors to share), as the loader reads them.
  patternProperties: { '^x-': {} },
  $id: 'https://unpkg.com/mock-idp/fixtures.schema.json',
  title: 'mock-idp fixtures',
};
writeFileSync(new URL('../fixtures.schema.json', import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);

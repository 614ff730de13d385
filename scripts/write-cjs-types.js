// Writes a .d.cts beside every .d.ts in dist/ (run by `npm run build`), with relative imports pointing at
// .cjs, so TypeScript in a CommonJS project (module node16/nodenext) types `require('mock-idp')` as the
// CommonJS module it is, instead of refusing an ES module behind a require.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8').replace(
        /(from |import\()(['"])(\.{1,2}\/[^'"]*)\.js\2/g,
        '$1$2$3.cjs$2',
      );
      writeFileSync(path.replace(/\.d\.ts$/, '.d.cts'), text);
    }
  }
}
walk('dist');

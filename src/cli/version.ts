// The package's version, read from its package.json (found beside dist/, whether bundled or not).
import { readFileSync } from 'node:fs';

/** The `version` of the nearest enclosing package.json named mock-idp. */
export function packageVersion(from: string = import.meta.url): string {
  for (let url = new URL('./package.json', from); ; url = new URL('../package.json', url)) {
    try {
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mock-idp' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look one directory up
    }
    if (url.pathname === '/package.json') return 'unknown';
  }
}

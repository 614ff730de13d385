// The optional peer dependency `testcontainers`, loaded here so that a project which has not installed it
// is told what to install instead of Node's bare "Cannot find module". testcontainers ships CommonJS only,
// so `require` gives the very module a user's own `import 'testcontainers'` gets, in the ESM and the
// CommonJS build alike.
import { createRequire } from 'node:module';
import type * as Testcontainers from 'testcontainers';
import { MockIdpContainerError } from './errors.js';

function loadTestcontainers(): typeof Testcontainers {
  try {
    return createRequire(import.meta.url)('testcontainers') as typeof Testcontainers;
  } catch (error) {
    const notFound =
      (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      /['"]testcontainers['"]/.test((error as Error).message);
    if (!notFound) throw error;
    throw new MockIdpContainerError(
      'TESTCONTAINERS_MISSING',
      "mock-idp/testcontainers needs the package 'testcontainers' (version 11 or 12), which this project " +
        'has not installed: run `npm i -D testcontainers`',
      { cause: error },
    );
  }
}

export const { AbstractStartedContainer, GenericContainer, ImageName, Wait, getContainerRuntimeClient } =
  loadTestcontainers();

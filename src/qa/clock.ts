// /mock/clock: read, set and advance the one clock.
import express from 'express';
import { z } from 'zod';
import { ClockRangeError } from '../clock.js';
import { invalidRequest } from '../oauth/errors.js';
import type { Provider } from '../realm/provider.js';
import { instantMs, parseBody } from './body.js';

const setSchema = z.strictObject({ now: instantMs.optional(), frozen: z.boolean().optional() });
const advanceSchema = z.strictObject({ seconds: z.number() });

/** Runs a clock change; one out of the clock's range is a 400 and changes nothing. */
function change(apply: () => void): void {
  try {
    apply();
  } catch (err) {
    if (err instanceof ClockRangeError) throw invalidRequest(`Clock not changed: ${err.message}`);
    throw err;
  }
}

/**
 * GET reads `{now, epoch, frozen}`; PUT sets `{now?, frozen?}`; POST advances `{seconds}`; DELETE goes back
 * to real time. Each answers the state.
 */
export function clockRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.json(p.clock.state());
  });
  router.put('/', async (req, res) => {
    const { now, frozen } = parseBody(setSchema, req.body, 'clock setting');
    change(() =>
      p.clock.set({
        ...(now !== undefined ? { now: new Date(now) } : {}),
        ...(frozen !== undefined ? { frozen } : {}),
      }),
    );
    await p.qaShare?.publish('clock');
    res.json(p.clock.state());
  });
  router.delete('/', async (_req, res) => {
    p.clock.reset();
    await p.qaShare?.publish('clock');
    res.json(p.clock.state());
  });
  router.post('/', async (req, res) => {
    const { seconds } = parseBody(advanceSchema, req.body, 'clock advance');
    change(() => p.clock.advance(seconds));
    await p.qaShare?.publish('clock');
    res.json(p.clock.state());
  });
  return router;
}

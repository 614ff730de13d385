// /mock/clock: read, set and advance the one clock.
import express from 'express';
import { z } from 'zod';
import type { Provider } from '../provider.js';
import { instantMs, parseBody } from './body.js';

const setSchema = z.strictObject({ now: instantMs.optional(), frozen: z.boolean().optional() });
const advanceSchema = z.strictObject({ seconds: z.number() });

/** GET reads `{now, epoch, frozen}`; PUT sets `{now?, frozen?}`; POST advances `{seconds}`. Each answers the state. */
export function clockRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.json(p.clock.state());
  });
  router.put('/', (req, res) => {
    const { now, frozen } = parseBody(setSchema, req.body, 'clock setting');
    p.clock.set({
      ...(now !== undefined ? { nowMs: now } : {}),
      ...(frozen !== undefined ? { frozen } : {}),
    });
    res.json(p.clock.state());
  });
  router.post('/', (req, res) => {
    p.clock.advance(parseBody(advanceSchema, req.body, 'clock advance').seconds);
    res.json(p.clock.state());
  });
  return router;
}

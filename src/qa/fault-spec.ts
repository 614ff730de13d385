// The fault request of POST /mock/faults: its schema and type, apart from HTTP.
import { z } from 'zod';
import { ENDPOINT_NAMES } from '../endpoint-names.js';

/** Endpoints a fault can target: every named endpoint (the contract's five among them). */
export const FAULT_ENDPOINTS = ENDPOINT_NAMES;

export const faultSchema = z
  .strictObject({
    endpoint: z.enum(FAULT_ENDPOINTS),
    status: z.number().int().min(400).max(599).optional(),
    error: z.string().min(1).optional(),
    description: z.string().min(1).optional(),
    delayMs: z.number().int().min(0).max(300_000).optional(),
    count: z
      .union([z.number().int().min(1), z.literal('always')])
      // Left out, a fault lasts: a test that asks for an outage gets one until it clears it, not one failure.
      .default('always')
      .describe('how many requests it applies to; "always" (the default): until DELETE /mock/faults'),
  })
  .refine((f) => f.status !== undefined || f.delayMs !== undefined, {
    message: 'give status (fail), delayMs (delay), or both',
  });

export type FaultSpec = z.input<typeof faultSchema>;

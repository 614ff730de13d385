// /mock/faults: the next matching requests fail with a chosen status, or are delayed, or both.
import express from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EndpointName } from '../endpoint-names.js';
import { injected, OAuthError, type OAuthErrorCode } from '../oauth/errors.js';
import { parseBody } from './body.js';
import { faultSchema, type FaultSpec } from './fault-spec.js';
import type { FaultStore, PendingFault } from '../store/faults.js';

/** The `error` an endpoint would plausibly answer with this status. */
function defaultError(endpoint: EndpointName, status: number): OAuthErrorCode {
  if (status === 500) return 'server_error';
  if (status >= 500) return 'temporarily_unavailable';
  if (status === 401) return endpoint === 'userinfo' ? 'invalid_token' : 'invalid_client';
  return 'invalid_request';
}

export class FaultInjector {
  readonly #faults: FaultStore;

  constructor(faults: FaultStore) {
    this.#faults = faults;
  }

  /** Queues a fault; faults for the same endpoint apply in the order they were added. */
  add(spec: FaultSpec): Promise<PendingFault> {
    const f = parseBody(faultSchema, spec, 'fault');
    return this.#faults.add({
      endpoint: f.endpoint,
      ...(f.status !== undefined
        ? { status: f.status, error: f.error ?? defaultError(f.endpoint, f.status) }
        : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.delayMs !== undefined ? { delayMs: f.delayMs } : {}),
      remaining: f.count,
    });
  }

  list(): Promise<PendingFault[]> {
    return this.#faults.list();
  }

  /** Removes every pending fault; answers how many there were. */
  clear(): Promise<number> {
    return this.#faults.clear();
  }

  /**
   * Uses up one application of the first pending fault for `endpoint`. A shared store that is away counts as
   * no fault: the endpoint runs and answers 503 itself if it needs the store (discovery and certs do not).
   */
  async take(endpoint: EndpointName): Promise<PendingFault | undefined> {
    try {
      return await this.#faults.take(endpoint);
    } catch (err) {
      if (err instanceof OAuthError && err.status === 503) return undefined;
      throw err;
    }
  }

  /**
   * The `beforeEndpoint` hook: delays, and/or throws the fault for the error handler to answer as every
   * real error of these endpoints is answered; true lets the endpoint run. With no fault pending in a store
   * that knows it at once (memory), true at once: no promise per request.
   */
  readonly beforeEndpoint = (endpoint: EndpointName): Promise<boolean> | boolean =>
    this.#faults.none?.() === true ? true : this.#apply(endpoint);

  async #apply(endpoint: EndpointName): Promise<boolean> {
    const fault = await this.take(endpoint);
    if (fault === undefined) return true;
    if (fault.delayMs !== undefined && fault.delayMs > 0) await sleep(fault.delayMs);
    if (fault.status === undefined) return true;
    throw new OAuthError(
      injected(fault.error ?? defaultError(endpoint, fault.status)),
      fault.description ?? `Injected fault: ${fault.status} at ${endpoint} (mock-idp /mock/faults)`,
      fault.status,
    );
  }
}

/** POST adds a fault, GET lists the pending ones, DELETE clears them. */
export function faultRoutes(faults: FaultInjector): express.Router {
  const router = express.Router();
  router.post('/', async (req, res) => {
    res.status(201).json(await faults.add(req.body as FaultSpec));
  });
  router.get('/', async (_req, res) => {
    res.json({ faults: await faults.list() });
  });
  router.delete('/', async (_req, res) => {
    res.json({ cleared: await faults.clear() });
  });
  return router;
}

// /mock/faults: the next matching requests fail with a chosen status, or are delayed, or both.
import express from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EndpointName } from '../http/paths.js';
import { injected, OAuthError, type OAuthErrorCode } from '../oauth/errors.js';
import { parseBody } from './body.js';
import { faultSchema, type FaultSpec, type PendingFault } from './fault-spec.js';

/** The `error` an endpoint would plausibly answer with this status. */
function defaultError(endpoint: EndpointName, status: number): OAuthErrorCode {
  if (status === 500) return 'server_error';
  if (status >= 500) return 'temporarily_unavailable';
  if (status === 401) return endpoint === 'userinfo' ? 'invalid_token' : 'invalid_client';
  return 'invalid_request';
}

export class FaultInjector {
  #pending: PendingFault[] = [];
  #nextId = 1;

  /** Queues a fault; faults for the same endpoint apply in the order they were added. */
  add(spec: FaultSpec): PendingFault {
    const f = parseBody(faultSchema, spec, 'fault');
    const fault: PendingFault = {
      id: this.#nextId++,
      endpoint: f.endpoint,
      ...(f.status !== undefined
        ? { status: f.status, error: f.error ?? defaultError(f.endpoint, f.status) }
        : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.delayMs !== undefined ? { delayMs: f.delayMs } : {}),
      remaining: f.count,
    };
    this.#pending.push(fault);
    return { ...fault };
  }

  list(): PendingFault[] {
    return this.#pending.map((f) => ({ ...f }));
  }

  /** Removes every pending fault; answers how many there were. */
  clear(): number {
    const n = this.#pending.length;
    this.#pending = [];
    return n;
  }

  /** Uses up one application of the first pending fault for `endpoint`. */
  take(endpoint: EndpointName): PendingFault | undefined {
    const fault = this.#pending.find((f) => f.endpoint === endpoint);
    if (fault === undefined) return undefined;
    if (fault.remaining === 'always') return fault;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#pending = this.#pending.filter((f) => f !== fault);
    return fault;
  }

  /**
   * The `beforeEndpoint` hook: delays, and/or throws the fault for the error handler to answer as every
   * real error of these endpoints is answered; true lets the endpoint run.
   */
  readonly beforeEndpoint = async (endpoint: EndpointName): Promise<boolean> => {
    const fault = this.take(endpoint);
    if (fault === undefined) return true;
    if (fault.delayMs !== undefined && fault.delayMs > 0) await sleep(fault.delayMs);
    if (fault.status === undefined) return true;
    throw new OAuthError(
      injected(fault.error ?? defaultError(endpoint, fault.status)),
      fault.description ?? `Injected fault: ${fault.status} at ${endpoint} (mock-idp /mock/faults)`,
      fault.status,
    );
  };
}

/** POST adds a fault, GET lists the pending ones, DELETE clears them. */
export function faultRoutes(faults: FaultInjector): express.Router {
  const router = express.Router();
  router.post('/', (req, res) => {
    res.status(201).json(faults.add(req.body as FaultSpec));
  });
  router.get('/', (_req, res) => {
    res.json({ faults: faults.list() });
  });
  router.delete('/', (_req, res) => {
    res.json({ cleared: faults.clear() });
  });
  return router;
}

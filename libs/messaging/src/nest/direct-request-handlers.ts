import type { Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import {
  PATTERN_HANDLER_METADATA,
  PATTERN_METADATA,
  TRANSPORT_METADATA,
} from '@nestjs/microservices/constants';
import { PatternHandler } from '@nestjs/microservices/enums/pattern-handler.enum';
import { RpcParamtype } from '@nestjs/microservices/enums/rpc-paramtype.enum';
import type { NestMicroservice } from '@nestjs/microservices';
import type { NatsRequestContext } from '../contexts';
import type { ContractValidationPipe } from './contract-validation.pipe';
import type { ReplyEnvelopeFilter } from './reply-envelope.filter';

/** A `@MessagePattern` method called without Nest's per-call chain; may answer synchronously. */
export type DirectRequestHandler = (body: object, ctx: NatsRequestContext) => unknown;

interface ParamMetadata {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/** Nest's own default when a method declares no parameter decorators: (payload, context). */
const DEFAULT_PARAMS: Record<string, ParamMetadata> = {
  [`${RpcParamtype.PAYLOAD}:0`]: { index: 0 },
  [`${RpcParamtype.CONTEXT}:1`]: { index: 1 },
};

const ENHANCERS = [
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  EXCEPTION_FILTERS_METADATA,
];

const hasEnhancers = (target: object) =>
  ENHANCERS.some((key) => ((Reflect.getMetadata(key, target) as unknown[]) ?? []).length > 0);

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof (v as PromiseLike<unknown> | null)?.then === 'function';

interface Internals {
  applicationConfig: {
    getGlobalPipes(): unknown[];
    getGlobalFilters(): unknown[];
    getGlobalGuards(): unknown[];
    getGlobalInterceptors(): unknown[];
    getGlobalRequestPipes(): unknown[];
    getGlobalRequestFilters(): unknown[];
    getGlobalRequestGuards(): unknown[];
    getGlobalRequestInterceptors(): unknown[];
  };
  container: {
    getModules(): Map<
      string,
      {
        controllers: Map<
          unknown,
          { instance: object | undefined; isDependencyTreeStatic(): boolean }
        >;
      }
    >;
  };
}

/**
 * The `@MessagePattern` handlers that need nothing of Nest's per-call machinery but what the
 * transport installs — the contract pipe on `@Payload()`, `@Ctx()`, the reply-envelope filter —
 * as direct calls of the controller method, by subject.
 *
 * Nest's call chain (rpc proxy, guards, interceptors and pipes consumers) is a dozen async
 * functions: about 20 promises a request, each an async-hooks call once AsyncLocalStorage is
 * on, and about a third of the Nest transport's time on a request (docs/performance.md).
 * A direct call does what that chain does for such a handler: the pipe transforms the payload
 * with the parameter's class, the method is called on the controller instance, and a throw
 * goes to the same filter. Any handler with more — a guard, interceptor, pipe or filter of its
 * own (class or method), a parameter decorator other than a bare `@Payload()`/`@Ctx()`,
 * request scope, a global enhancer besides the transport's, two methods on one subject — is
 * left to Nest's chain.
 */
export function directRequestHandlers(
  ms: NestMicroservice,
  pipe: ContractValidationPipe,
  filter: ReplyEnvelopeFilter,
): Map<string, DirectRequestHandler> {
  const { applicationConfig: config, container } = ms as unknown as Internals;
  const direct = new Map<string, DirectRequestHandler | null>();
  const onlyTransports =
    config.getGlobalPipes().length === 1 &&
    config.getGlobalPipes()[0] === pipe &&
    config.getGlobalFilters().length === 1 &&
    config.getGlobalFilters()[0] === filter &&
    [
      config.getGlobalGuards(),
      config.getGlobalInterceptors(),
      config.getGlobalRequestPipes(),
      config.getGlobalRequestFilters(),
      config.getGlobalRequestGuards(),
      config.getGlobalRequestInterceptors(),
    ].every((list) => list.length === 0);
  if (!onlyTransports) return new Map();

  const scanner = new MetadataScanner();
  for (const module of container.getModules().values()) {
    for (const wrapper of module.controllers.values()) {
      const instance = wrapper.instance;
      if (!instance) continue;
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(proto)) {
        const method = proto[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) !== PatternHandler.MESSAGE) {
          continue;
        }
        const patterns = (Reflect.getMetadata(PATTERN_METADATA, method) as unknown[]) ?? [];
        const call =
          wrapper.isDependencyTreeStatic() &&
          Reflect.getMetadata(TRANSPORT_METADATA, method) === undefined &&
          !hasEnhancers(instance.constructor) &&
          !hasEnhancers(method)
            ? directCall(instance, name, method, pipe, filter)
            : null;
        for (const pattern of patterns) {
          if (typeof pattern !== 'string') continue;
          direct.set(pattern, direct.has(pattern) ? null : call);
        }
      }
    }
  }
  const usable = new Map<string, DirectRequestHandler>();
  for (const [pattern, call] of direct) if (call) usable.set(pattern, call);
  return usable;
}

function directCall(
  instance: object,
  name: string,
  method: (...args: unknown[]) => unknown,
  pipe: ContractValidationPipe,
  filter: ReplyEnvelopeFilter,
): DirectRequestHandler | null {
  const declared = Reflect.getMetadata(ROUTE_ARGS_METADATA, instance.constructor, name) as
    | Record<string, ParamMetadata>
    | undefined;
  const types = (Reflect.getMetadata('design:paramtypes', instance, name) as Type[]) ?? [];
  const params: { index: number; payload: boolean; metatype?: Type }[] = [];
  for (const [key, p] of Object.entries(declared ?? DEFAULT_PARAMS)) {
    const type = Number(key.split(':')[0]);
    if (p.data !== undefined || (p.pipes?.length ?? 0) > 0) return null;
    if (type !== RpcParamtype.PAYLOAD && type !== RpcParamtype.CONTEXT) return null;
    params.push({
      index: p.index,
      payload: type === RpcParamtype.PAYLOAD,
      metatype: types[p.index],
    });
  }
  const length = params.reduce((n, p) => Math.max(n, p.index + 1), 0);
  const failed = (e: unknown, body: object, ctx: NatsRequestContext) => {
    const host = new ExecutionContextHost([body, ctx]);
    host.setType('rpc');
    return filter.catch(e, host);
  };
  return (body, ctx) => {
    try {
      const args: unknown[] = new Array(length).fill(undefined);
      let waiting = false;
      for (const p of params) {
        const value = p.payload
          ? pipe.transform(body, { type: RpcParamtype.PAYLOAD as never, metatype: p.metatype })
          : ctx;
        waiting ||= isThenable(value);
        args[p.index] = value;
      }
      const result = waiting
        ? Promise.all(args).then((values) => method.apply(instance, values))
        : method.apply(instance, args);
      return isThenable(result)
        ? Promise.resolve(result).catch((e: unknown) => failed(e, body, ctx))
        : result;
    } catch (e) {
      return failed(e, body, ctx);
    }
  };
}

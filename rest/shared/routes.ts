import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Credentials } from '../../core/shared/auth/credentials';
import type { Ctx } from '../../core/shared/context';
import type { ErrorBody } from './http-errors';
import type { Json } from './openapi-schemas';
import type { UploadLimits } from './multipart';
import type { InputOf, InputSpec } from './validation';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Several media types, each with its schema (a JSON answer or an event stream); replaces schema/contentType. */
  content?: Record<string, z.ZodType | Json | undefined>;
}

/** What a handler gets besides its input: the call's context (its caller resolved) and, for streams, the raw exchange. */
export interface RouteContext<C = unknown> {
  ctx: Ctx<C>;
  req: Request;
  res: Response;
  /** What the route's `before` returned. */
  checked?: unknown;
  /** Between heartbeats of a streamed answer (STREAM_HEARTBEAT_MS): what a route that streams passes to its writer. */
  heartbeatMs: number;
}

/** One REST operation: its contract (for validation, auth and OpenAPI) and its thin handler. */
export interface Route<I extends InputSpec = InputSpec, C = unknown> {
  method: Method;
  /** Express path relative to the service prefix, e.g. `/oauth/connect/token`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  input?: I;
  /**
   * Also takes `multipart/form-data` (one file): the handler then finds it with `uploadOf(res)` and
   * `input` is not validated (the handler validates the metadata part itself).
   */
  upload?: UploadLimits;
  /**
   * Its body is JSON also when it comes without a Content-Type: boto3 sends InvokeModel's body
   * (the model's native JSON) with none unless told, as botocore adds none to a blob payload.
   */
  untypedJson?: boolean;
  /** This route's error body, when it differs from its service's (a vendor's wire format). */
  errorBody?: ErrorBody;
  /** Anyone may call it (health): no caller is established. Every other route gets its service's caller in `ctx.caller`. */
  public?: boolean;
  /** A bearer-token service: roles the caller must hold, checked before any body is read (403), besides the core's own check. */
  auth?: { roles?: readonly string[] };
  /**
   * How this route's callers are established, when not as its service's are (the token service's
   * account routes take a person's bearer token in a service whose other routes take none).
   */
  credentials?: Credentials<unknown>;
  /**
   * Where this route's clients put the credential when not where the service's declaration looks
   * (a vendor SDK's own header): the headers to present instead, e.g. `{ 'api-key': ... }`.
   */
  credential?: (req: Request) => Record<string, string | undefined>;
  /**
   * Runs once the caller is known and before any body is read (a model check before an upload);
   * what it returns is the handler's `checked`. A throw answers in the route's error format.
   */
  before?: (req: Request, ctx: Ctx<C>) => unknown;
  responses: Record<number, ResponseSpec>;
  /** What OpenAPI says beyond `input` and `responses` (examples, security, a documented path); several for one path that serves several operations. */
  docs?: OperationDocs | readonly OperationDocs[];
  /** Returns the JSON body of a 200, or undefined when it wrote the response itself. */
  handle: (input: InputOf<I>, rc: RouteContext<C>) => Promise<unknown>;
}

/** Checks a route against its own schemas: the handler's input type is inferred from `input`, its caller's from `C`. */
export const defineFor =
  <C>() =>
  <const I extends InputSpec = Record<never, never>>(route: Route<I, C>): Route =>
    route as unknown as Route;

/** A route of a service without callers. */
export const define = defineFor<undefined>();

/** A service's REST face: everything needed to mount it and to describe it. */
export interface RestService {
  /** Its short name in the recent errors (`token`, `admin`); its title when absent. */
  name?: string;
  title: string;
  version: string;
  prefix: string;
  routes: Route[];
  errorBody: ErrorBody;
  /** RFC 9068 audience its callers' tokens must name. */
  audience?: string;
  /** How its callers are established (its module's declaration); none when absent. */
  credentials?: Credentials<unknown>;
  /** Named schemas to list under components (the spec's `Msg`, `TokenRequest`, ...). */
  schemas?: Record<string, z.ZodType>;
  /** Its clients speak HTTP/2 without TLS (h2c, the AWS SDK's default): the server takes it too. */
  http2Cleartext?: boolean;
  /** Content types read as JSON bodies (default `application/json`). */
  jsonTypes?: string[];
  /** OpenAPI: how callers authenticate, the description of the document. */
  docs?: ServiceDocs;
}

export type SecurityRequirement = Record<string, string[]>;

/** A request body as documented: media types with their schemas, and what Try it out starts from. */
export interface BodyDocs {
  /** Default: the route's input body. */
  content?: Record<string, z.ZodType | Json>;
  /** The first media type's example (Swagger UI's starting value). */
  example?: unknown;
  description?: string;
  required?: boolean;
}

/** What one documented operation says beyond the route's schemas. */
export interface OperationDocs {
  /** The documented path relative to the prefix, when not the route's (`/gemini/models/{model}:generateContent`). */
  path?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  /** Per parameter name: merged into the generated parameter (`schema`, `example`, `required`), or a new one (then with `in`). */
  params?: Record<string, Json>;
  body?: BodyDocs;
  /** Per status: replaces the route's response of that status. */
  responses?: Record<number, ResponseSpec>;
  /** Who may call it; `[]` for anyone. Default: bearer for routes with `auth`, else the service's. */
  security?: SecurityRequirement[];
}

/** What a service's document says about it as a whole. */
export interface ServiceDocs {
  description?: string;
  securitySchemes?: Record<string, Json>;
  /** The security of routes without `auth` or their own (default: none needed). */
  security?: SecurityRequirement[];
}

/** A service's admin routes (paths relative to `/admin/api/v1`, rest/admin) and the named schemas they list. */
export interface AdminFace {
  routes: Route[];
  schemas?: Record<string, z.ZodType>;
}

// The dashboard's calls typed by path and method (type-checking only: the browser never loads this file). The routes
// are the `paths` of the one generated types file, clients/typescript/src/schema.gen.ts (`npm run client:generate`,
// from the OpenAPI document), which the typed client uses too. api() in api.js takes a concrete path, as the browser
// sends it (`/api/v1/generations/${id}?${query}`), and these types find the document's route it is an instance of:
// a path that is no route, a method the route does not answer, a body field the request has not or an answer field
// the response has not is a type error (test/unit/web-api-typing.test.ts shows each one failing).
import type { components, paths } from '../../clients/typescript/src/schema.gen';

/** The API's requests and answers by schema name: `Schemas['Generation']`. */
export type Schemas = components['schemas'];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type Route = keyof paths & string;

/** A route's template with each `{param}` a string: '/api/v1/generations/{generationId}' -> `/api/v1/generations/${string}`. */
type Pattern<R extends string> = R extends `${infer A}{${string}}${infer B}` ? `${A}${string}${Pattern<B>}` : R;

/** Every path api() accepts: a route with its parameters filled in, with or without a query. */
export type Path = { [R in Route]: Pattern<R> | `${Pattern<R>}?${string}` }[Route];

type WithoutQuery<P extends string> = P extends `${infer A}?${string}` ? A : P;
type Segments<P extends string> = P extends `${infer Head}/${infer Tail}` ? [Head, ...Segments<Tail>] : [P];
/** A `{param}` segment takes any non-empty segment; another takes only itself. */
type SegmentMatches<R extends string, S extends string> = R extends `{${string}}`
  ? S extends ''
    ? false
    : true
  : S extends R
    ? true
    : false;
type SegmentsMatch<R extends string[], S extends string[]> = R extends [
  infer RH extends string,
  ...infer RT extends string[],
]
  ? S extends [infer SH extends string, ...infer ST extends string[]]
    ? SegmentMatches<RH, SH> extends true
      ? SegmentsMatch<RT, ST>
      : false
    : false
  : S extends []
    ? true
    : false;

/**
 * The route(s) a concrete path is an instance of, segment by segment (`${string}` alone would let a parameter take
 * slashes: '/api/v1/generations/x/deliveries' is not '/api/v1/generations/{generationId}').
 */
export type RouteOf<P extends string> = P extends unknown
  ? { [R in Route]: SegmentsMatch<Segments<R>, Segments<WithoutQuery<P>>> extends true ? R : never }[Route]
  : never;

type MethodsOf<Item> = {
  [M in Method]: Lowercase<M> extends keyof Item ? (Item[Lowercase<M>] extends undefined ? never : M) : never;
}[Method];

/** The methods a path's route answers. */
export type MethodOf<P extends string> = RouteOf<P> extends infer R extends Route ? MethodsOf<paths[R]> : never;

type Operation<M extends Method, P extends string> =
  RouteOf<P> extends infer R extends Route ? (R extends unknown ? NonNullable<paths[R][Lowercase<M>]> : never) : never;

type Success = 200 | 201 | 202 | 204;
/** What api() parses a body into: JSON as its schema, an image as a Blob, anything else as text. */
type Parsed<Content> = Content extends { 'application/json': infer J }
  ? J
  : Content extends Record<`image/${string}`, unknown>
    ? Blob
    : string;
type AnswerOf<Op> = Op extends { responses: infer Responses }
  ? {
      [S in keyof Responses & Success]: Responses[S] extends { content: infer C } ? Parsed<C> : null;
    }[keyof Responses & Success]
  : never;

/** A call's answer: any of its 2xx responses (204 or no content: null). */
export type Answer<M extends Method, P extends string> = AnswerOf<Operation<M, P>>;

type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** A call's JSON request body (undefined for a route that takes none). */
export type RequestBody<M extends Method, P extends string> = BodyOf<Operation<M, P>>;

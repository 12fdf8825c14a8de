// Types for the dashboard's JSDoc that JSDoc cannot spell itself (recursive ones). Type-checking only: the browser
// never loads this file.

/** What h() and render() accept as children: nodes, text, nothing, or (nested) lists of them. */
export type Child = Node | string | number | null | undefined | false | Child[];

/** The signed-in user, as GET /api/auth/session and the account routes answer it. */
export type User = import('./api-paths').Schemas['Account']['user'];

/** What app.js gives a page when it renders it. */
export interface PageContext {
  /** the query of the hash route (#/studio?garment=...) */
  params: URLSearchParams;
  session: { user: User | null };
  /** false once the user went to another page: a page still loading then leaves the screen alone */
  isCurrent: () => boolean;
}

/** A dashboard page (web/js/pages/*.js): renders itself into `view`, which app.js has put on the screen. */
export type Page = (view: HTMLElement, ctx: PageContext) => Promise<void>;

/**
 * h()'s props for an element E: `on<event>` listeners (given the event, whose currentTarget is E: h adds them to
 * E), else attributes or properties (see h in dom.js).
 */
export type Props<E extends Element = HTMLElement> = {
  [K in keyof HTMLElementEventMap as `on${K}`]?:
    ((e: HTMLElementEventMap[K] & { currentTarget: E }) => unknown) | null | false;
} & { [attribute: string]: unknown };

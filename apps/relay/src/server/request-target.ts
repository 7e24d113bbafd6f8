/** A request's target, parsed once and safely. */
export interface RequestTarget {
  /** The path as sent (still percent-encoded). */
  readonly rawPath: string;
  /** The path percent-decoded. */
  readonly path: string;
  readonly query: URLSearchParams;
}

/**
 * Parses an HTTP request target (origin-form `/path?query`, or absolute-form). Client input: a
 * target `new URL` or `decodeURIComponent` cannot take (`//[`, `/%ZZ`) gives undefined, for the
 * caller to answer 400, instead of an exception before authentication.
 */
export function parseRequestTarget(target: string | undefined): RequestTarget | undefined {
  const text = target ?? "/";
  try {
    // Origin-form is appended to a fixed origin, so `//host/...` stays a path and never an authority.
    const url = text.startsWith("/") ? new URL(`http://relay${text}`) : new URL(text);
    return { rawPath: url.pathname, path: decodeURIComponent(url.pathname), query: url.searchParams };
  } catch (err) {
    if (err instanceof TypeError || err instanceof URIError) return undefined;
    throw err;
  }
}

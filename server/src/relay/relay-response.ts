/** Every response the relay builds carries the request id (set here: adding it later costs a copy). */
export const reply = (
  body: ConstructorParameters<typeof Response>[0],
  status: number,
  requestId: string,
  headers: Record<string, string>,
): Response => new Response(body, { status, headers: { ...headers, 'x-oneapi-request-id': requestId } });

/** The body as JSON, or undefined when it is not JSON. */
export const safeJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
};

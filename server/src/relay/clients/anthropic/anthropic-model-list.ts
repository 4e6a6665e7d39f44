/** A model's creation time (seconds since the epoch) as RFC 3339, to the second. */
const rfc3339 = (seconds: number): string => {
  const date = new Date(Number.isFinite(seconds) ? seconds * 1000 : 0);
  return Number.isNaN(date.getTime()) ? '1970-01-01T00:00:00Z' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/**
 * The models a key may use as Anthropic's `GET /v1/models` answers them: one page holding them all.
 * The display name is the id (the hub knows no other name).
 */
export const anthropicModelList = (models: readonly { id: string; created: number }[]) => {
  const data = models.map((model) => ({
    type: 'model' as const,
    id: model.id,
    display_name: model.id,
    created_at: rfc3339(model.created),
  }));
  return {
    data,
    has_more: false,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
};

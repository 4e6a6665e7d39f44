/**
 * `GET /v1beta/models` in Gemini's shape, for the ids a key may use (as they are: `models/<id>`).
 * Sluice does not know every model's limits: Gemini models get Gemini 2.5's (1 048 576 in, 65 536
 * out), any other model a common 128 000 in and 8 192 out. Gemini CLI keeps limits of its own and
 * reads none of these.
 */
export interface GeminiModel {
  readonly name: string;
  readonly version: string;
  readonly displayName: string;
  readonly description: string;
  readonly inputTokenLimit: number;
  readonly outputTokenLimit: number;
  readonly supportedGenerationMethods: readonly string[];
}

const METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;

const isGemini = (id: string): boolean => /^gemini-/i.test(id);

export const geminiModelList = (ids: readonly string[]): { models: GeminiModel[] } => ({
  models: ids.map((id) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    description: `${id}, served by Sluice`,
    inputTokenLimit: isGemini(id) ? 1_048_576 : 128_000,
    outputTokenLimit: isGemini(id) ? 65_536 : 8_192,
    supportedGenerationMethods: METHODS,
  })),
});

/**
 * The one safe JSON parse of server, console and contract: the value of a JSON text, or undefined when the text is not JSON
 * (JSON has no undefined, so no valid text reads as undefined).
 */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** The helper of spec §5: whether a text is valid JSON. */
export const isValidJson = (text: string): boolean => parseJson(text) !== undefined;

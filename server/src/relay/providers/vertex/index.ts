/**
 * The Vertex AI folder's public entry: the adaptor (Gemini and Claude on Google Cloud, with a
 * service account's access token).
 */
export { vertexAdaptor } from './vertex-adaptor.js';
export { VERTEX_MODELS } from './vertex-models.js';

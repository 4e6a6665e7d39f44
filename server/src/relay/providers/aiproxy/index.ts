/** The AI Proxy knowledge base folder's public entry. */
export { aiProxyLibraryAdaptor } from './aiproxy-adaptor.js';

/** The Alibaba DashScope folder's public entry. */
export { aliAdaptor } from './ali-adaptor.js';

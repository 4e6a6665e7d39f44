/** The Azure folder's public entry. */
export { AZURE_DEFAULT_API_VERSION, azureAcceptsStreamOptions, azureAdaptor } from './azure-adaptor.js';

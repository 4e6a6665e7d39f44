import { pricingAnswerSchema } from '@sluice/contract/schemas/pricing';
import { apiGetFlat } from '../../lib/api-client.js';

/** GET /api/pricing: the rows in `data`, the group and its ratio beside them (new-api's shape). */
export const getPricing = () => apiGetFlat('/api/pricing', pricingAnswerSchema);

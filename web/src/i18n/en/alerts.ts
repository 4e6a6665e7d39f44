/** English texts: alerts (webhooks and their delivery log). */
export const enAlerts = {
  alerts: {
    title: 'Alerts',
    intro:
      'Channels disabled or back, and quotas running low, are mailed and sent to these webhooks as signed JSON; each kind about one object waits out its cooldown before it is sent again.',
    webhooks: 'Webhooks',
    noWebhooks: 'No webhook is configured.',
    name: 'Webhook',
    url: 'Address',
    events: 'Events',
    allEvents: 'All events',
    sendTest: 'Send test',
    testDelivered: 'The test reached {{name}}.',
    testFailed: 'The test did not reach {{name}}: {{error}}',
    editHint:
      'The list is secret and never shown again: type the whole list to replace it (a JSON list of name, url, secret of 16 characters or more, and optionally events).',
    editLabel: 'Replace the webhook list (JSON)',
    save: 'Save webhooks',
    saved: 'Webhooks saved.',
    deliveries: 'Deliveries',
    noDeliveries: 'No delivery yet.',
    time: 'Time',
    event: 'Event',
    status: 'Status',
    any: 'Any',
    attempts: 'Attempts',
    answer: 'Answer',
    error: 'Last error',
    statuses: { pending: 'Retrying', delivered: 'Delivered', failed: 'Failed' },
    eventNames: {
      channelDisabled: 'Channel disabled',
      channelEnabled: 'Channel back',
      userQuotaLow: 'User quota low',
      tokenQuotaLow: 'Key quota low',
      test: 'Test',
    },
  },
};

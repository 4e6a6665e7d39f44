import { statusSchema, type Status } from '@sluice/contract/schemas/status';
import { useEffect, useState } from 'react';
import { z } from 'zod';

const responseSchema = z.object({ success: z.boolean(), message: z.string(), data: statusSchema.optional() });

/** A placeholder until the console lands: shows that the server answers /api/status. */
export const StatusPage = () => {
  const [status, setStatus] = useState<Status>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    fetch('/api/status')
      .then(async (response) => responseSchema.parse(await response.json()))
      .then((body) => {
        if (body.success && body.data) {
          setStatus(body.data);
          document.title = body.data.system_name;
        } else setError(body.message);
      })
      .catch(() => setError('cannot connect to the server'));
  }, []);

  if (error) return <p role="alert">{error}</p>;
  if (!status) return <p>Loading…</p>;
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '4rem auto' }}>
      <h1>{status.system_name}</h1>
      <p>
        Version {status.version}, running since {new Date(status.start_time * 1000).toISOString()}.
      </p>
      <p>
        The OpenAI-compatible API is at <code>/v1</code>; the management API at <code>/api</code>.
      </p>
    </main>
  );
};

SELECT id FROM webhook_subscribers WHERE id = ANY($1::bigint[]);

SELECT 1 AS found FROM webhook_endpoints
          WHERE (substr(token, 1, 4) = 'enc:' AND substr(token, 1, 10) <> 'enc:plain:')
             OR (substr(secrets, 1, 4) = 'enc:' AND substr(secrets, 1, 10) <> 'enc:plain:')
             OR (substr(headers, 1, 4) = 'enc:' AND substr(headers, 1, 10) <> 'enc:plain:')
          LIMIT 1;

INSERT INTO webhook_endpoints (url, token, secrets, event_types, subscriber_id, rate_limit, signature_headers, headers, filter, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, (extract(epoch FROM statement_timestamp()) * 1000)::bigint) RETURNING *;

SELECT id FROM webhook_subscribers WHERE id = ?;

SELECT 1 AS found FROM webhook_endpoints
          WHERE (substr(token, 1, 4) = 'enc:' AND substr(token, 1, 10) <> 'enc:plain:')
             OR (substr(secrets, 1, 4) = 'enc:' AND substr(secrets, 1, 10) <> 'enc:plain:')
             OR (substr(headers, 1, 4) = 'enc:' AND substr(headers, 1, 10) <> 'enc:plain:')
          LIMIT 1;

INSERT INTO webhook_endpoints (url, token, secrets, event_types, subscriber_id, rate_limit, signature_headers, headers, filter, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *;

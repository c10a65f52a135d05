SELECT * FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2;

SELECT 1 AS found FROM webhook_endpoints
          WHERE (substr(token, 1, 4) = 'enc:' AND substr(token, 1, 10) <> 'enc:plain:')
             OR (substr(secrets, 1, 4) = 'enc:' AND substr(secrets, 1, 10) <> 'enc:plain:')
             OR (substr(headers, 1, 4) = 'enc:' AND substr(headers, 1, 10) <> 'enc:plain:')
          LIMIT 1;

UPDATE webhook_endpoints SET
          verified_at = CASE WHEN $1::text IS NULL OR $2 = url THEN verified_at ELSE NULL END,
          url = COALESCE($3, url),
          token = COALESCE($4, token), secrets = COALESCE($5, secrets),
          event_types = CASE WHEN $6 = 1 THEN $7 ELSE event_types END,
          rate_limit = CASE WHEN $8 = 1 THEN $9::int ELSE rate_limit END,
          rate_tokens = CASE WHEN $10 = 1 THEN NULL ELSE rate_tokens END,
          rate_at = CASE WHEN $11 = 1 THEN NULL ELSE rate_at END,
          signature_headers = CASE WHEN $12 = 1 THEN $13 ELSE signature_headers END,
          headers = CASE WHEN $14 = 1 THEN $15 ELSE headers END,
          filter = CASE WHEN $16 = 1 THEN $17 ELSE filter END
        WHERE id = $18 AND subscriber_id = $19 RETURNING *;

SELECT * FROM webhook_endpoints WHERE url = ?
          AND subscriber_id IS NOT DISTINCT FROM ?
        ORDER BY id LIMIT 1;

SELECT * FROM webhook_endpoints WHERE id = ? AND true;

SELECT 1 AS found FROM webhook_endpoints
          WHERE (substr(token, 1, 4) = 'enc:' AND substr(token, 1, 10) <> 'enc:plain:')
             OR (substr(secrets, 1, 4) = 'enc:' AND substr(secrets, 1, 10) <> 'enc:plain:')
             OR (substr(headers, 1, 4) = 'enc:' AND substr(headers, 1, 10) <> 'enc:plain:')
          LIMIT 1;

UPDATE webhook_endpoints SET
          verified_at = CASE WHEN ? IS NULL OR ? = url THEN verified_at ELSE NULL END,
          url = COALESCE(?, url),
          token = COALESCE(?, token), secrets = COALESCE(?, secrets),
          event_types = CASE WHEN ? = 1 THEN ? ELSE event_types END,
          rate_limit = CASE WHEN ? = 1 THEN ? ELSE rate_limit END,
          rate_tokens = CASE WHEN ? = 1 THEN NULL ELSE rate_tokens END,
          rate_at = CASE WHEN ? = 1 THEN NULL ELSE rate_at END,
          signature_headers = CASE WHEN ? = 1 THEN ? ELSE signature_headers END,
          headers = CASE WHEN ? = 1 THEN ? ELSE headers END,
          filter = CASE WHEN ? = 1 THEN ? ELSE filter END
        WHERE id = ? AND true RETURNING *;

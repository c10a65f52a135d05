UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
          updated_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint, lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = $2) RETURNING *;

-- wake the workers once committed

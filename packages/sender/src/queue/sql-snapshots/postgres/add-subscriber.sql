INSERT INTO webhook_subscribers (name, token_hash, created_at)
        VALUES ($1, $2, (extract(epoch FROM statement_timestamp()) * 1000)::bigint) RETURNING id, name, created_at;

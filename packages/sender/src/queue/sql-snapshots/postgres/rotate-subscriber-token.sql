UPDATE webhook_subscribers SET token_hash = $1 WHERE id = $2;

UPDATE webhook_subscribers SET token_hash = ? WHERE id = ?;

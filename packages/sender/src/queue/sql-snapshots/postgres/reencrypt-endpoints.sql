SELECT id, token, secrets, headers FROM webhook_endpoints ORDER BY id FOR UPDATE;

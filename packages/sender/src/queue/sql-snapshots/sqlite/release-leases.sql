UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
        WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ?;

-- wake the workers once committed

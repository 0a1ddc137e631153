DELETE FROM transfers;
DELETE FROM accounts;

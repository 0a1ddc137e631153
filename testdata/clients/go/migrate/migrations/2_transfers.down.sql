DROP TABLE transfers;
DROP FUNCTION apply_transfer();

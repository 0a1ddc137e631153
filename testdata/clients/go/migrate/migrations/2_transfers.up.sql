CREATE TABLE transfers (
	id bigserial PRIMARY KEY,
	from_id bigint NOT NULL REFERENCES accounts (id),
	to_id bigint NOT NULL REFERENCES accounts (id),
	amount numeric(12, 2) NOT NULL CHECK (amount > 0),
	note text
);
CREATE INDEX transfers_from ON transfers (from_id, id);

-- A transfer moves its amount between the balances as it is inserted.
CREATE FUNCTION apply_transfer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE accounts SET balance = balance - NEW.amount WHERE id = NEW.from_id;
	UPDATE accounts SET balance = balance + NEW.amount WHERE id = NEW.to_id;
	RETURN NEW;
END;
$$;
CREATE TRIGGER transfers_apply AFTER INSERT ON transfers FOR EACH ROW EXECUTE FUNCTION apply_transfer();

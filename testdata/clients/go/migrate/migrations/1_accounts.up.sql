CREATE TABLE accounts (
	id bigserial PRIMARY KEY,
	email text NOT NULL UNIQUE,
	balance numeric(12, 2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
	opened timestamptz NOT NULL DEFAULT now()
);

-- +goose Up
CREATE TABLE users (
	id serial PRIMARY KEY,
	handle varchar(30) NOT NULL UNIQUE,
	karma int NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE users;

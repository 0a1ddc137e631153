-- CREATE INDEX CONCURRENTLY cannot run in a transaction block.
-- +goose NO TRANSACTION

-- +goose Up
CREATE INDEX CONCURRENTLY posts_title ON posts (lower(title));

-- +goose Down
DROP INDEX CONCURRENTLY posts_title;

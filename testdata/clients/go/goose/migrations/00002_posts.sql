-- +goose Up
CREATE TABLE posts (
	id bigserial PRIMARY KEY,
	author_id int NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title text NOT NULL,
	score int NOT NULL DEFAULT 0,
	edits int NOT NULL DEFAULT 0
);

-- An edit of a post's title counts itself.
-- +goose StatementBegin
CREATE FUNCTION count_edit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.title IS DISTINCT FROM OLD.title THEN
		NEW.edits := OLD.edits + 1;
	END IF;
	RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER posts_count_edit BEFORE UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION count_edit();

-- +goose Down
DROP TABLE posts;
DROP FUNCTION count_edit();

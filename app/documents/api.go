package documents

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// Upload limits from the spec: up to 5 files per upload, 2048 KB each.
const (
	maxFilesPerUpload = 5
	maxFileBytes      = 2048 * 1024
	maxUploadBody     = maxFilesPerUpload*(maxFileBytes+8<<10) + 64<<10
)

// documentTypes are the accepted contents, recognised by their first bytes, not their name.
// Office files are ZIP containers.
var documentTypes = map[string]bool{
	"application/pdf": true, "image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
	"text/plain; charset=utf-8": true, "application/zip": true,
}

// previewRecord is the spec's file preview record.
type previewRecord struct {
	ID        int64  `json:"id"`
	MediaType string `json:"media_type"`
	Tag       string `json:"tag"`
	Name      string `json:"name"`
	Size      string `json:"size"`
	URL       string `json:"url"`
	Thumbnail bool   `json:"thumbnail"`
}

// sizeKB is the spec's file size display: KB with two decimals.
func sizeKB(n int64) string { return strconv.FormatFloat(float64(n)/1024, 'f', 2, 64) + " KB" }

func preview(d *store.Document) previewRecord {
	return previewRecord{ID: d.ID, MediaType: d.MediaType, Tag: d.Tag, Name: d.Name, Size: sizeKB(d.SizeBytes),
		URL: fmt.Sprintf("/v1/api/%s/download-document/%d", d.Entity, d.ID), Thumbnail: strings.HasPrefix(d.MediaType, "image/")}
}

func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// previews are the documents as the API shows them.
func previews(docs []store.Document) []previewRecord {
	out := make([]previewRecord, 0, len(docs))
	for i := range docs {
		out = append(out, preview(&docs[i]))
	}
	return out
}

// owner reads the lead or client the path's {id} names and checks the caller reaches it.
func owner(r *http.Request, entity string) (store.Scope, int64, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return store.Scope{}, 0, err
	}
	scope := web.Scope(r)
	return scope, id, scope.Reachable(r.Context(), entity, id)
}

// entityFolder is where an entity's files live in the file store.
func entityFolder(tenantID int64, entity string, id int64) string {
	return fmt.Sprintf("%d/%s/%d", tenantID, entity, id)
}

// DocumentUpload streams a multipart upload into the file store: at most five files
// of at most 2048 KB, each checked by its bytes. It stops reading at the first file over a
// limit, and removes whatever it stored when the upload fails.
func (h *Handler) DocumentUpload(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scope, id, err := owner(r, entity)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		docs, err := h.receiveUpload(w, r, scope, entity, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		out := previews(docs)
		h.web.OK(w, r, http.StatusCreated, "documents.uploaded", out)
	}
}

// receiveUpload reads a multipart upload of files (form name any, plus an optional "tag"
// field) for a reachable entity, stores the files and records them. The JSON API and the
// admin pages share it.
func (h *Handler) receiveUpload(w http.ResponseWriter, r *http.Request, scope store.Scope, entity string, id int64) ([]store.Document, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, web.BadRequest("error.form", err)
	}
	var stored []store.Document
	cleanup := func() {
		for _, d := range stored {
			_ = h.files.Delete(context.WithoutCancel(r.Context()), d.StorageKey)
		}
	}
	tag := ""
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			cleanup()
			return nil, web.BadRequest("error.form", err)
		}
		if part.FormName() == "tag" && part.FileName() == "" {
			b, _ := io.ReadAll(io.LimitReader(part, 100))
			tag = strings.TrimSpace(string(b))
			if err := web.FormText("tag", tag); err != nil {
				cleanup()
				return nil, err
			}
			continue
		}
		if part.FileName() == "" {
			continue
		}
		if len(stored) == maxFilesPerUpload {
			cleanup()
			return nil, validate.Errors{"files": "tooManyFiles"}
		}
		d, err := h.storeUpload(r.Context(), scope.TenantID, entity, id, part)
		if err != nil {
			cleanup()
			return nil, err
		}
		d.Tag = tag
		stored = append(stored, *d)
	}
	if len(stored) == 0 {
		return nil, validate.Errors{"files": validate.KeyRequired}
	}
	docs, err := scope.AddDocuments(r.Context(), entity, id, stored)
	if err != nil {
		cleanup()
		return nil, err
	}
	return docs, nil
}

// storeUpload checks one file's first bytes and size while streaming it to the store.
func (h *Handler) storeUpload(ctx context.Context, tenantID int64, entity string, id int64, part *multipart.Part) (*store.Document, error) {
	name := cleanFileName(part.FileName())
	head := make([]byte, 512)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	mt := http.DetectContentType(head)
	if !documentTypes[mt] || (strings.HasPrefix(mt, "text/plain") && !utf8.Valid(head)) {
		return nil, &web.Error{Status: http.StatusUnprocessableEntity, MsgID: "documents.badType", Args: []any{"Name", name}}
	}
	key := entityFolder(tenantID, entity, id) + "/" + newKey()
	body := io.LimitReader(io.MultiReader(bytes.NewReader(head), part), maxFileBytes+1)
	size, err := h.files.Put(ctx, key, body)
	if err != nil {
		return nil, err
	}
	if size > maxFileBytes {
		_ = h.files.Delete(context.WithoutCancel(ctx), key)
		return nil, &web.Error{Status: http.StatusRequestEntityTooLarge, MsgID: "documents.tooLarge", Args: []any{"Name", name}}
	}
	return &store.Document{Name: name, MediaType: mt, SizeBytes: size, StorageKey: key}, nil
}

func cleanFileName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 32 || r == '<' || r == '>' || r == '"' {
			return -1
		}
		return r
	}, name)
	if name == "" || name == "." || name == "/" {
		name = "file"
	}
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

func (h *Handler) DocumentList(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
			docs, err := s.Documents(ctx, entity, id)
			if err != nil {
				return nil, err
			}
			out := previews(docs)
			return web.List[previewRecord]{Result: out, Total: int64(len(out)), Page: 1, Limit: len(out)}, nil
		})
	}
}

func (h *Handler) DocumentView(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
			d, err := s.Document(ctx, entity, id)
			if err != nil {
				return nil, err
			}
			return preview(d), nil
		})
	}
}

type documentPayload struct {
	Name string `json:"name"`
	Tag  string `json:"tag"`
}

func (h *Handler) DocumentUpdate(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		web.ServeJSONByID(h.web, w, r, http.StatusOK, "documents.updated", func(ctx context.Context, s store.Scope, id int64, p documentPayload) (any, error) {
			d, err := s.UpdateDocument(ctx, entity, id, p.Name, p.Tag)
			if err != nil {
				return nil, err
			}
			return preview(d), nil
		})
	}
}

func (h *Handler) DocumentDelete(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.web.ServeByID(w, r, http.StatusOK, "documents.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
			key, err := s.DeleteDocument(ctx, entity, id)
			if err != nil {
				return nil, err
			}
			if err := h.files.Delete(ctx, key); err != nil {
				h.web.Logger(r).Warn("document file not removed", "key", key, "err", err)
			}
			return nil, nil
		})
	}
}

// DocumentDownload serves a document as an attachment, never rendered inline.
func (h *Handler) DocumentDownload(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		d, err := web.Scope(r).Document(r.Context(), entity, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		f, err := h.files.Open(r.Context(), d.StorageKey)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		defer f.Close()
		disposition := "attachment"
		if strings.HasPrefix(d.MediaType, "image/") && r.URL.Query().Get("inline") == "1" {
			disposition = "inline" // thumbnails; images only, with nosniff
		}
		w.Header().Set("Content-Type", d.MediaType)
		w.Header().Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": d.Name}))
		w.Header().Set("Content-Length", strconv.FormatInt(d.SizeBytes, 10))
		w.Header().Set("Cache-Control", "private, no-store")
		_, _ = io.Copy(w, f)
	}
}

// RemoveFiles deletes an entity's stored files after its records are gone.
func (h *Handler) RemoveFiles(r *http.Request, entity string, id int64) {
	p := web.Caller(r)
	if err := h.files.DeleteAll(context.WithoutCancel(r.Context()), entityFolder(p.Tenant.ID, entity, id)); err != nil {
		h.web.Logger(r).Warn("document files not removed", "entity", entity, "id", id, "err", err)
	}
}

// DeleteRecords answers an API bulk delete of leads or clients named by `ids=[…]`: del
// deletes those the caller reaches and returns their ids, whose document files then go too.
func (h *Handler) DeleteRecords(w http.ResponseWriter, r *http.Request, entity, msgID string,
	del func(ctx context.Context, s store.Scope, ids []int64) ([]int64, error)) {
	ids, ok := web.QueryIDs(r, "ids")
	if !ok || len(ids) == 0 {
		h.web.Fail(w, r, validate.Errors{"ids": validate.KeyInvalid})
		return
	}
	deleted, err := del(r.Context(), web.Scope(r), ids)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		h.RemoveFiles(r, entity, id)
	}
	h.web.Counted(w, r, msgID, len(deleted))
}

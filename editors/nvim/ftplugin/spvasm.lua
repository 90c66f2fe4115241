vim.bo.commentstring = "; %s"
vim.bo.comments = ":;"

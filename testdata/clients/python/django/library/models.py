"""The library app: publishers, authors and books, with the field types,
relations, indexes and constraints an application uses."""
import uuid

from django.db import models
from django.db.models import Q


class Publisher(models.Model):
    name = models.CharField(max_length=100, unique=True)
    country_code = models.CharField(max_length=2)
    # Added by 0003, with a default for the rows already there.
    founded = models.IntegerField(default=1900)

    class Meta:
        ordering = ["name"]


class Author(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(unique=True)
    born = models.DateField(null=True)


class Book(models.Model):
    class Format(models.TextChoices):
        PAPER = "paper"
        EBOOK = "ebook"

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    title = models.CharField(max_length=250)
    publisher = models.ForeignKey(Publisher, on_delete=models.PROTECT, related_name="books")
    authors = models.ManyToManyField(Author, related_name="books")
    price = models.DecimalField(max_digits=8, decimal_places=2)
    pages = models.PositiveSmallIntegerField()
    published = models.DateField()
    format = models.CharField(max_length=5, choices=Format.choices, default=Format.PAPER)
    in_stock = models.BooleanField(default=True)
    details = models.JSONField(default=dict)
    added = models.DateTimeField(auto_now_add=True)
    # Added by 0002_book_rating, which fills it in.
    rating = models.SmallIntegerField(null=True)

    class Meta:
        indexes = [
            models.Index(fields=["published", "price"], name="book_published_price"),
            models.Index(fields=["publisher"], name="book_in_stock", condition=Q(in_stock=True)),
        ]
        constraints = [
            models.CheckConstraint(check=Q(price__gte=0), name="book_price_nonnegative"),
            models.UniqueConstraint(fields=["publisher", "title"], name="book_unique_title_per_publisher"),
        ]
